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
  /** SNAP latestTransactionStatus: 03 pending until paid (00) or cancelled (05). */
  status: string;
  paidAt: number | null;
  payerName: string;
  issuer: string;
  rrn: string;
}
