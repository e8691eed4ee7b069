// Shared by the gateway's inbound SNAP endpoints (notify, access token): SNAP-shaped answers and the
// checks every inbound call makes. Acquirers read `responseCode`, not the gateway's error envelope.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseSnapTimestamp } from './signature.js';

export const TOKEN_SUFFIX = '/v1.0/access-token/b2b';
export const TOKEN_LIFETIME_SECONDS = 900;

/** An answer: HTTP status, then the 7-character responseCode = status + service code + case. */
export class SnapReply {
  constructor(
    readonly status: number,
    readonly caseCode: string,
    readonly message: string,
  ) {}

  responseCode(service: string): string {
    return `${this.status}${service}${this.caseCode}`;
  }
}

export const reject = {
  badRequest: (why: string) => new SnapReply(400, '00', `Bad Request. ${why}`),
  format: (field: string) => new SnapReply(400, '01', `Invalid Field Format [${field}]`),
  mandatory: (field: string) => new SnapReply(400, '02', `Invalid Mandatory Field [${field}]`),
  unauthorized: (why: string) => new SnapReply(401, '00', `Unauthorized. [${why}]`),
  token: () => new SnapReply(401, '01', 'Invalid Token (B2B)'),
  notFound: () => new SnapReply(404, '01', 'Transaction Not Found'),
  conflict: () => new SnapReply(409, '00', 'Conflict'),
};

export function sendSnap(reply: FastifyReply, service: string, answer: SnapReply, extra: object = {}): FastifyReply {
  return reply
    .code(answer.status)
    .type('application/json')
    .send({ responseCode: answer.responseCode(service), responseMessage: answer.message, ...extra });
}

export function header(request: FastifyRequest, name: string): string | null {
  const v = request.headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : null;
}

/** SNAP's mandatory `Content-Type: application/json` (parameters such as charset allowed); null when so. */
export function contentTypeProblem(request: FastifyRequest): SnapReply | null {
  const type = header(request, 'Content-Type');
  if (type === null) return reject.mandatory('Content-Type');
  return /^application\/json\s*(;|$)/i.test(type) ? null : reject.format('Content-Type');
}

/** The path exactly as received (what the sender signed), without the query. */
export function signedPath(request: FastifyRequest): string {
  return (request.raw.url ?? request.url).split('?')[0]!;
}

/** Checks X-TIMESTAMP's format and age; null when acceptable. */
export function timestampProblem(timestamp: string, now: number, windowSeconds: number): SnapReply | null {
  const at = parseSnapTimestamp(timestamp);
  if (at === null) return reject.format('X-TIMESTAMP');
  if (Math.abs(now - at) > windowSeconds * 1000)
    return reject.unauthorized('X-TIMESTAMP is outside the allowed window');
  return null;
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Where a source's acquirer takes B2B tokens from the gateway: the notify path's base + TOKEN_SUFFIX. */
export function tokenPathFor(notifyPath: string): string {
  const at = notifyPath.indexOf('/v1.0/');
  return `${at > 0 ? notifyPath.slice(0, at) : '/snap'}${TOKEN_SUFFIX}`;
}

/** Jakarta calendar day, the unit of SNAP's X-EXTERNAL-ID uniqueness. */
export const jakartaDay = (ms: number): string => new Date(ms + 7 * 3600_000).toISOString().slice(0, 10);

export function parseObject(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
