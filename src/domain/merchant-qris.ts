import { AppError } from './errors.js';
import { parseStaticQris, type ParsedQris } from './qris/index.js';

/**
 * The rule a merchant's code must pass to be saved (a static QRIS with a valid CRC); the console's
 * preview asks it too, so the two never disagree. Throws invalid_qris naming `qris`.
 */
export function parseMerchantQris(qris: string): ParsedQris {
  try {
    return parseStaticQris(qris.trim());
  } catch (err) {
    if (err instanceof AppError) throw new AppError('invalid_qris', err.message, { param: 'qris' });
    throw err;
  }
}
