import type { FastifyReply } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';

// fast-json-stringify serialises an `anyOf` by validating the value against each branch with ajv (format
// checks included) on every response. Where a handler knows which shape it answers, it can serialise
// with that shape alone; the route keeps its documented schema for the OpenAPI document and the errors.

type Schema = Record<string, unknown>;
/** A schema for serialising values of type T (T only checks what handlers send). */
export type SerializationSchema<T> = Schema & { readonly __serializes?: T };
const COMBINATORS = ['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'if'];

/**
 * The same schema for serialising, with each `T | null` union (TypeBox's anyOf of T and null) written as
 * a type list, which fast-json-stringify serialises with a null check instead of ajv. Only unions of a
 * plainly typed schema and null are rewritten; every other keyword is copied unchanged, in order.
 */
export function serializationSchema<T extends TSchema>(schema: T): SerializationSchema<Static<T>> {
  return rewrite(schema) as Schema;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const { anyOf, ...siblings } = node as Schema;
  const typed = nullableBranch(anyOf);
  if (typed) return rewrite({ ...siblings, ...typed, type: [typed.type, 'null'] });
  const out: Schema = {};
  for (const key of Object.keys(node)) out[key] = rewrite((node as Schema)[key]);
  return out;
}

/** The non-null branch of an anyOf [T, null] or [null, T] when T has one type and no combinator. */
function nullableBranch(anyOf: unknown): Schema | null {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return null;
  const isNull = (s: Schema) => s.type === 'null' && Object.keys(s).length === 1;
  const [a, b] = anyOf as Schema[];
  const other = a && b && isNull(b) ? a : a && b && isNull(a) ? b : null;
  if (!other || typeof other.type !== 'string' || other.type === 'null') return null;
  return COMBINATORS.some((k) => k in other) ? null : other;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends `body` serialised with `schema` by the route's own serializer compiler (compiled on first use
 * and cached per route by Fastify), with the content type Fastify gives a serialised object.
 */
export function sendSerialized<T extends Schema>(
  reply: FastifyReply,
  schema: SerializationSchema<T>,
  body: NoInfer<T>,
): FastifyReply {
  return reply.type(JSON_TYPE).send(reply.serializeInput(body, schema));
}
