// The acquirer simulator's side of a payment notification: signed asymmetrically with the acquirer's
// key, or symmetrically after taking a B2B token from the gateway, as real acquirers do.
import type { KeyObject } from 'node:crypto';
import type { SimulatedCode, SimulatorPartner } from './types.js';
import { newExternalId } from '../../payment-sources/snap/client.js';
import { tokenPathFor } from '../../payment-sources/snap/inbound.js';
import { signAccessToken, signAsymmetric, signSymmetric, snapTimestamp } from '../../payment-sources/snap/signature.js';

export interface NotifyOptions {
  /** false: build the signed request and return it without sending (tests tamper with it). */
  send?: boolean;
  timestamp?: string;
  externalId?: string;
  /** latestTransactionStatus to report instead of the code's own. */
  status?: string;
}

export interface NotifyResult {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The gateway's answer; null when not sent. */
  status: number | null;
  response: unknown;
}

const gatewayTokens = new WeakMap<SimulatorPartner, { token: string; expiresAt: number }>();

export async function sendSimulatedNotification(
  acquirerKey: KeyObject,
  code: SimulatedCode,
  options: NotifyOptions,
): Promise<NotifyResult> {
  const { partner } = code;
  if (!partner.notifyUrl) throw new Error('this partner has no notify URL (start the simulator with a gateway URL)');
  const url = new URL(partner.notifyUrl);
  const timestamp = options.timestamp ?? snapTimestamp(Date.now());
  const paid = code.paidAt ?? Date.now();
  const message = {
    originalReferenceNo: code.referenceNo,
    originalPartnerReferenceNo: code.partnerReferenceNo,
    latestTransactionStatus: options.status ?? code.status,
    transactionStatusDesc: (options.status ?? code.status) === '00' ? 'Success' : 'Pending',
    amount: { value: `${code.amount}.00`, currency: 'IDR' },
    additionalInfo: {
      issuerName: code.issuer,
      payerName: code.payerName,
      rrn: code.rrn,
      paidTime: snapTimestamp(paid),
    },
  };
  // Pretty-printed on purpose: the receiver must hash the minified text, not the bytes as sent.
  const body = JSON.stringify(message, null, 2);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-TIMESTAMP': timestamp,
    'X-PARTNER-ID': partner.partnerId,
    'X-EXTERNAL-ID': options.externalId ?? newExternalId(),
    'CHANNEL-ID': partner.channelId,
  };
  if (partner.notifyVerification === 'asymmetric') {
    headers['X-SIGNATURE'] = signAsymmetric(acquirerKey, { method: 'POST', path: url.pathname, body, timestamp });
  } else {
    const token = await gatewayToken(acquirerKey, partner, url);
    headers.Authorization = `Bearer ${token}`;
    headers['X-SIGNATURE'] = signSymmetric(
      partner.clientSecret,
      { method: 'POST', path: url.pathname, accessToken: token, body, timestamp },
      partner.signatureEncoding,
    );
  }
  if (options.send === false) return { url: url.toString(), headers, body, status: null, response: null };
  return { url: url.toString(), headers, body, ...(await post(url.toString(), headers, body)) };
}

async function gatewayToken(acquirerKey: KeyObject, partner: SimulatorPartner, notifyUrl: URL): Promise<string> {
  const cached = gatewayTokens.get(partner);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  const timestamp = snapTimestamp(Date.now());
  const tokenUrl = `${notifyUrl.origin}${tokenPathFor(notifyUrl.pathname)}`;
  const { status, response } = await post(
    tokenUrl,
    {
      'Content-Type': 'application/json',
      'X-TIMESTAMP': timestamp,
      'X-CLIENT-KEY': partner.clientId,
      'X-SIGNATURE': signAccessToken(acquirerKey, partner.clientId, timestamp),
    },
    JSON.stringify({ grantType: 'client_credentials' }),
  );
  const token = (response as { accessToken?: unknown } | null)?.accessToken;
  if (status !== 200 || typeof token !== 'string')
    throw new Error(`the gateway refused a token: ${status} ${JSON.stringify(response)}`);
  gatewayTokens.set(partner, { token, expiresAt: Date.now() + 600_000 });
  return token;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; response: unknown }> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let response: unknown = text;
  try {
    response = JSON.parse(text);
  } catch {
    // Left as text: the caller shows whatever came back.
  }
  return { status: res.status, response };
}
