// An AppError is an answer to a client, built without a stack (capturing one was about a sixth of the CPU
// of a flood of refused requests); an internal_error keeps its stack, since it is logged.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';

function thrownDeep(depth: number, make: () => Error): Error {
  if (depth === 0) return make();
  return thrownDeep(depth - 1, make);
}

describe('AppError stacks', () => {
  it('an answer carries no frames, and the stack limit is left as it was', () => {
    const before = Error.stackTraceLimit;
    const err = thrownDeep(5, () => new AppError('invalid_api_key', 'the API key is not valid'));
    expect(Error.stackTraceLimit).toBe(before);
    expect(err.stack ?? '').not.toMatch(/\n\s+at /);
    expect(err.message).toBe('the API key is not valid');
    expect(err).toBeInstanceOf(AppError);
    expect(err.name).toBe('AppError');
  });

  it('an internal_error keeps its frames, as do other errors made after an answer', () => {
    new AppError('not_found', 'no such thing');
    const internal = thrownDeep(3, () => new AppError('internal_error', 'something went wrong'));
    expect(internal.stack).toMatch(/\n\s+at thrownDeep/);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });
});
