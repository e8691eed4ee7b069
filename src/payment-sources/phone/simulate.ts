import { createHmac } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import { randomBase62 } from '../../domain/ids.js';
import type { PaymentSourcesTable } from '../../storage/schema.js';
import { inboundEventsPath, parseJsonObject } from '../common.js';
import { readCredentials } from './credentials.js';
import { readerByName, readers } from './readers/index.js';

/**
 * What SMS to URL Forwarder would post for an app's payment-received notification (`dev notify`): the
 * template the console's card gives, signed as the forwarder signs (X-Signature: hex HMAC-SHA256 of the
 * body with the source's secret).
 */
export function simulatedPhonePost(
  row: PaymentSourcesTable,
  input: { app: string; amount: number; now: number },
): { path: string; headers: Record<string, string>; body: string } {
  const credentials = readCredentials(parseJsonObject(row.config));
  if (credentials === null) throw new AppError('source_not_found', 'no such payment source');
  const reader = readerByName(input.app);
  if (!reader)
    throw new AppError('invalid_parameter', `app must be ${readers.map((r) => r.name).join(', ')}`, { param: 'app' });
  const { title, text } = reader.example(input.amount, randomBase62(8));
  const body = JSON.stringify({ from: title, text, timestamp: String(input.now) });
  const signature = createHmac('sha256', credentials.secret).update(body).digest('hex');
  return {
    path: inboundEventsPath(row.id),
    headers: { 'content-type': 'application/json', 'x-signature': signature },
    body,
  };
}

export const simulatedApps = (): string[] => readers.map((r) => r.name);
