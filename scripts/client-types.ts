// The client package's API types (packages/client/src/api-types.ts), written from the server's own TypeBox
// schemas so the two cannot drift: `npm run client:types` rewrites the file, and a test fails when the
// committed file is not what this renders.
//
// It renders the small JSON Schema subset those schemas use (objects, arrays, unions, literals, enums,
// strings, numbers, booleans, null) and refuses anything else, so a new kind of schema is noticed here
// rather than typed loosely.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import {
  ErrorEnvelope,
  Payment,
  PaymentEvent,
  Refund,
  RefundedTransaction,
  RefundEvent,
  ReportedPayment,
  Transaction,
  TransactionEvent,
  TransactionPage,
  WebhookEvent,
} from '../src/http/schemas.js';

export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../packages/client/src/api-types.ts', import.meta.url));

interface Named {
  name: string;
  schema: TSchema;
  doc: string;
}

const ApiError = ErrorEnvelope.properties.error;

// In dependency order; a schema met again inside another is written by its name.
const NAMED: Named[] = [
  {
    name: 'ErrorCode',
    schema: ApiError.properties.code,
    doc: 'Every `code` the API answers with (docs/api.md has a row for each).',
  },
  { name: 'ApiError', schema: ApiError, doc: 'The `error` object of a failed answer.' },
  { name: 'Payment', schema: Payment, doc: 'The payment that paid a transaction.' },
  { name: 'Refund', schema: Refund, doc: "One of a transaction's refunds." },
  {
    name: 'Transaction',
    schema: Transaction,
    doc: 'A transaction as `cqris`, `cstatus`, `cancel` and `simulate` answer it.',
  },
  {
    name: 'RefundedTransaction',
    schema: RefundedTransaction,
    doc: 'What `refund` answers: the transaction after the refund, and the refund.',
  },
  { name: 'TransactionPage', schema: TransactionPage, doc: 'One page of `cstatus` without `trxid`.' },
  { name: 'ReportedPayment', schema: ReportedPayment, doc: 'A reported payment, as `payment.unmatched` carries it.' },
  { name: 'TransactionEvent', schema: TransactionEvent, doc: 'A webhook event about a transaction.' },
  { name: 'PaymentEvent', schema: PaymentEvent, doc: 'A webhook event about a payment that matched no transaction.' },
  {
    name: 'RefundEvent',
    schema: RefundEvent,
    doc: 'A webhook event about a refund that became final (`data.refund` is the refund).',
  },
  { name: 'WebhookEvent', schema: WebhookEvent, doc: 'The body of every webhook delivery.' },
];

type Json = Record<string, unknown>;

/** A literal as TypeScript source, in the single quotes the rest of the code uses. */
function literal(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A property's description, also when it sits on the non-null side of a nullable. */
function describe(property: Json): string | null {
  if (typeof property.description === 'string') return property.description;
  for (const member of (property.anyOf ?? []) as Json[])
    if (typeof member.description === 'string') return member.description;
  return null;
}

function render(schema: Json, indent: string, top: TSchema | null): string {
  if (schema !== top) {
    const named = NAMED.find((n) => n.schema === schema);
    if (named) return named.name;
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((s) => render(s, indent, null)).join(' | ');
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) {
    const values = (schema.enum as unknown[]).map(literal);
    // A long list (the error codes) reads better one per line.
    return values.length > 6 ? values.map((v) => `\n${indent}  | ${v}`).join('') : values.join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = render(schema.items as Json, indent, null);
      return item.includes(' ') ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return renderObject(schema, indent);
    default:
      throw new Error(`client-types: cannot render the schema ${JSON.stringify(schema)}`);
  }
}

function renderObject(schema: Json, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([key, property]) => {
    const description = describe(property);
    const doc = description === null ? '' : `${inner}/** ${description} */\n`;
    return `${doc}${inner}${key}${required.has(key) ? '' : '?'}: ${render(property, inner, null)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

export function renderClientTypes(): string {
  const parts = [
    "// Generated by `npm run client:types` from the gateway's schemas (src/http/schemas.ts). Do not edit by",
    '// hand: a test fails when this file and the schemas differ.',
    '',
  ];
  for (const { name, schema, doc } of NAMED) {
    const body = render(schema as unknown as Json, '', schema);
    parts.push(`/** ${doc} */`);
    parts.push(
      body.startsWith('{')
        ? `export interface ${name} ${body}`
        : `export type ${name} =${body.startsWith('\n') ? '' : ' '}${body};`,
    );
    parts.push('');
  }
  return parts.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CLIENT_TYPES_PATH, renderClientTypes());
  process.stdout.write(`wrote ${CLIENT_TYPES_PATH}\n`);
}
