// Type-level check that the client package's types cover the server's schemas: each client type must be
// assignable to what the server sends (a field the server sends that the client lacks, or types as
// optional, fails) and have exactly the server's keys (a field the server no longer sends fails).
// Compiled by `npm run typecheck` and by test/client/client-types.test.ts, which also shows that it
// fails when a field is taken out of the client's types.
import type { Static, TSchema } from '@sinclair/typebox';
import type * as Client from '../../packages/client/src/api-types.js';
import type * as Server from '../../src/http/schemas.js';
import type { ErrorCode } from '../../src/domain/errors.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
type Covers<C, S extends TSchema> = [C] extends [Static<S>] ? true : false;
type SameKeys<C, S extends TSchema> = Equal<keyof C, keyof Static<S>>;
type Matches<C, S extends TSchema> = Covers<C, S> extends true ? SameKeys<C, S> : false;

export type ClientTypesMatchServer = [
  Assert<Matches<Client.Payment, typeof Server.Payment>>,
  Assert<Matches<Client.Refund, typeof Server.Refund>>,
  Assert<Matches<Client.Transaction, typeof Server.Transaction>>,
  Assert<Matches<Client.RefundedTransaction, typeof Server.RefundedTransaction>>,
  Assert<Matches<Client.RefundEvent, typeof Server.RefundEvent>>,
  Assert<Matches<Client.TransactionPage, typeof Server.TransactionPage>>,
  Assert<Matches<Client.ApiError, typeof Server.ErrorEnvelope.properties.error>>,
  Assert<Matches<Client.ReportedPayment, typeof Server.ReportedPayment>>,
  Assert<Matches<Client.TransactionEvent, typeof Server.TransactionEvent>>,
  Assert<Matches<Client.PaymentEvent, typeof Server.PaymentEvent>>,
  Assert<Covers<Client.WebhookEvent, typeof Server.WebhookEvent>>,
  Assert<Equal<Client.ErrorCode, ErrorCode>>,
];
