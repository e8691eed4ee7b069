import { AppError } from '../../domain/errors.js';
import { secondsToWibMidnight } from '../../domain/wib.js';
import type { DailyLimit } from '../transactions/create-input.js';

/** The refusal of a create whose daily count is used up, with the seconds until it starts again. */
export function quotaExceeded({ counter, limit }: DailyLimit, now: number): AppError {
  const seconds = secondsToWibMidnight(now);
  const what = counter === 'link' ? "this merchant's payment links may make" : 'this merchant may create';
  return new AppError(
    'quota_exceeded',
    `${what} ${limit} transactions a day (WIB); the count starts again at midnight WIB`,
    {
      retryAfter: seconds,
    },
  );
}
