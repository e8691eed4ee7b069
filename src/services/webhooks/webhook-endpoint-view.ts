import { isoTime } from '../../domain/iso-time.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';

export interface WebhookEndpointView {
  id: string;
  merchant_id: string;
  url: string;
  events: string[];
  status: WebhookEndpointsTable['status'];
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export interface CreatedWebhookEndpoint extends WebhookEndpointView {
  /** Shown once, at creation; the gateway needs it to sign, so it is stored, but never listed. */
  secret: string;
}

export function view(row: WebhookEndpointsTable): WebhookEndpointView {
  let events: string[];
  try {
    events = JSON.parse(row.events) as string[];
  } catch {
    events = [];
  }
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    url: row.url,
    events,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
