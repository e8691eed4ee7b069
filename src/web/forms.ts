// The one form reader of every page route: the console's, the checkout's and the payment links'. Each route
// declares TypeBox schemas for its params, query and body, as the API's routes do, so a handler reads typed
// values (never `request.body as ...`) and a value of the wrong shape never reaches it.
//
// A browser's form is all text, and leaves out what is empty or unchecked, so every field is optional text at
// this level. The schema bounds the shape; whether a value is usable (a known mode, a valid address) stays the
// service's rule, whose AppError the page shows as its own clear message. A value of the wrong shape (a field
// sent twice, a file where text belongs, far too long) is refused before the handler, with the console's
// "this form could not be used" page naming the field (routes.ts).
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';

/** Longer than any field a page asks for (the longest is a webhook payload pasted for a test); the multipart limit is 64 KB. */
const TEXT_MAX = 64 * 1024;

/** One text field of a form or a query parameter: optional, at most `maxLength` characters. */
export const Text = (maxLength = TEXT_MAX) => Type.Optional(Type.String({ maxLength }));

/** A field that may repeat (a group of checkboxes): one text, or several. Read it with `listOf`. */
export const TextList = (maxItems = 500) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength: TEXT_MAX }), Type.Array(Type.String({ maxLength: TEXT_MAX }), { maxItems })]),
  );

/**
 * A value handed as it came to a domain parser that explains every wrong shape itself (parseAmount says "a
 * single value, not a list"), so the page keeps that message: typed `unknown`, which the parser takes.
 */
export const Raw = () => Type.Optional(Type.Unknown());

/** A file of a multipart form: its bytes (the console's multipart plugin attaches files to the body as Buffers). */
export const Upload = () => Type.Optional(Type.Unsafe<Buffer>({ description: 'a file' }));

/** A path segment (an id, a handle): text; whose it is and whether it exists is the service's question (a 404). */
export const Segment = () => Type.String({ maxLength: 200 });

/**
 * A form's body: its own fields, and the CSRF token every form carries. Fields the page does not ask for are
 * dropped (ajv's removeAdditional), so a handler sees exactly what it declared.
 */
export function Form<T extends TProperties>(fields: T) {
  return Type.Object({ _csrf: Text(512), ...fields }, { additionalProperties: false });
}

/** A query string: the parameters a page reads; others (a tracker's utm_*) are dropped. */
export function Query<T extends TProperties>(params: T) {
  return Type.Object(params, { additionalProperties: false });
}

/** Path parameters. */
export function Params<T extends TProperties>(params: T) {
  return Type.Object(params);
}

/** Every value of a repeating field (TextList): absent is none. */
export function listOf(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The schema part of a page route's options: hidden from the OpenAPI document, like every page. */
export function pageSchema<S extends { params?: TSchema; querystring?: TSchema; body?: TSchema }>(
  schema: S,
): S & { hide: true } {
  return { ...schema, hide: true };
}
