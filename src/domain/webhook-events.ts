import { AppError } from './errors.js';
import type { EventType } from './records.js';

// The webhook event types: what an endpoint may subscribe to, as an operator types it (console and CLI),
// and whether an endpoint's stored list takes an event.

export const EVENT_TYPES: readonly EventType[] = [
  'transaction.paid',
  'transaction.expired',
  'transaction.cancelled',
  'payment.unmatched',
  'refund.succeeded',
  'refund.failed',
];

/** Event types from `a,b` text; empty or `*` means every type. */
export function parseEventList(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '' || text.trim() === '*') return ['*'];
  const items = [...new Set(text.split(',').map((s) => s.trim()))];
  for (const item of items) {
    if (!(EVENT_TYPES as readonly string[]).includes(item)) {
      throw new AppError(
        'invalid_parameter',
        `unknown event type ${JSON.stringify(item)}; expected ${EVENT_TYPES.join(', ')} or *`,
        { param: 'events' },
      );
    }
  }
  return items;
}

/**
 * Whether an endpoint's stored event list (a JSON array of event types, `*` for all) takes this event
 * type; a list that cannot be read takes nothing.
 */
export function subscribes(eventsJson: string, type: string): boolean {
  try {
    const list = JSON.parse(eventsJson) as unknown;
    return Array.isArray(list) && (list.includes('*') || list.includes(type));
  } catch {
    return false;
  }
}
