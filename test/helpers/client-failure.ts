import { expect } from 'vitest';
import { QrisGatewayError } from '@qris-gateway/client';

/** What a client call threw, which must be a QrisGatewayError (a call that succeeded fails the test). */
export async function failure(call: Promise<unknown>): Promise<QrisGatewayError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QrisGatewayError);
  return err as QrisGatewayError;
}
