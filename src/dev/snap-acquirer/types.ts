// What the SNAP acquirer simulator keeps of each partner (merchant) and each code it issued.
import type { KeyObject } from 'node:crypto';

export interface SimulatorPartner {
  clientId: string;
  clientSecret: string;
  partnerId: string;
  channelId: string;
  merchantId: string;
  terminalId: string;
  /** The gateway's public key: token requests must be signed with its private half. */
  publicKey: KeyObject;
  notifyUrl: string | null;
  notifyVerification: 'asymmetric' | 'symmetric';
  signatureEncoding: 'base64' | 'hex';
}

export interface SimulatedCode {
  referenceNo: string;
  partnerReferenceNo: string;
  amount: number;
  qrContent: string;
  partner: SimulatorPartner;
  /** SNAP latestTransactionStatus: 03 pending until paid (00) or cancelled (05); 04 once fully refunded. */
  status: string;
  paidAt: number | null;
  payerName: string;
  issuer: string;
  rrn: string;
}

/** A refund the simulator was asked for, kept under its partnerRefundNo so a repeat answers the same. */
export interface SimulatedRefund {
  partnerRefundNo: string;
  /** The simulator's id of the refund (its referenceNo in the answer). */
  referenceNo: string;
  /** The refunded code's referenceNo. */
  codeReference: string;
  amount: number;
  reason: string;
  /** in_progress still counts against what is left to refund; refused never does. */
  status: 'in_progress' | 'succeeded' | 'refused';
  /** How many more asks answer "in progress" before it settles. */
  pendingAsks: number;
  refundedAt: number | null;
  /** The refusal answered, again, to every repeat. */
  refusal: { status: number; caseCode: string; message: string } | null;
}
