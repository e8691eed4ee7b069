import { AppError } from '../../domain/errors.js';
import type { EventType } from '../../storage/schema.js';

export const EVENT_TYPES: readonly EventType[] = ['transaction.paid', 'transaction.expired', 'transaction.cancelled', 'payment.unmatched'];

/** Event types from `a,b` text; empty or `*` means every type. */
export function parseEventList(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '' || text.trim() === '*') return ['*'];
  const items = [...new Set(text.split(',').map((s) => s.trim()))];
  for (const item of items) {
    if (!(EVENT_TYPES as readonly string[]).includes(item)) {
      throw new AppError('invalid_parameter', `unknown event type ${JSON.stringify(item)}; expected ${EVENT_TYPES.join(', ')} or *`, { param: 'events' });
    }
  }
  return items;
}
