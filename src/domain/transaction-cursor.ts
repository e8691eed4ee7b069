import { AppError } from './errors.js';

// The cursor of a transaction list (the API's and the console's) is the (created_at, id) of the last row
// returned, so pages stay stable while new transactions arrive at the head of the list.

export function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}:${id}`, 'utf8').toString('base64url');
}

/** A cursor this gateway did not make is an `invalid_parameter`. */
export function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const m = /^([0-9]{1,15}):(trx_[0-9A-Za-z]{1,64})$/.exec(text);
  if (!m) throw new AppError('invalid_parameter', 'cursor is not one this API returned', { param: 'cursor' });
  return { createdAt: Number(m[1]), id: m[2]! };
}
