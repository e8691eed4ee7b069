import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors.js';

/** What every response of the public API carries (ARCHITECTURE.md, "How a request flows", step 6). */
export const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,64}$/;
const KNOWN_CODES = new Set<string>(ERROR_CODES);

export interface ResponseLike {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export function header(res: ResponseLike, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export function expectCommonHeaders(res: ResponseLike): void {
  expect(header(res, 'x-api-version'), 'X-Api-Version').toBe('1.0.0');
  expect(header(res, 'cache-control'), 'Cache-Control').toBe('no-store');
  expect(header(res, 'x-request-id'), 'X-Request-Id').toMatch(REQUEST_ID_SHAPE);
}

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; param?: string; request_id: string };
}

/**
 * Asserts the error envelope exactly: shape, known code, status, request id matching the header; and
 * `param` when given (null: the error must name no parameter).
 */
export function expectError(res: ResponseLike, status: number, code: ErrorCode, param?: string | null): ErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(header(res, 'content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as ErrorBody;
  expectEnvelopeShape(body);
  expect(body.error.code).toBe(code);
  if (param === null) expect(body.error).not.toHaveProperty('param');
  else if (param !== undefined) expect(body.error.param).toBe(param);
  expectCommonHeaders(res);
  expect(body.error.request_id).toBe(header(res, 'x-request-id'));
  return body;
}

export function expectEnvelopeShape(body: unknown): asserts body is ErrorBody {
  expect(body).toBeTypeOf('object');
  const b = body as Record<string, unknown>;
  expect(Object.keys(b).sort()).toEqual(['error', 'success']);
  expect(b.success).toBe(false);
  const error = b.error as Record<string, unknown>;
  for (const key of Object.keys(error)) expect(['code', 'message', 'param', 'request_id']).toContain(key);
  expect(KNOWN_CODES.has(String(error.code)), `unknown code ${String(error.code)}`).toBe(true);
  expect(typeof error.message).toBe('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  if ('param' in error) expect(typeof error.param).toBe('string');
  expect(error.request_id).toMatch(REQUEST_ID_SHAPE);
}

export function isKnownCode(code: unknown): boolean {
  return typeof code === 'string' && KNOWN_CODES.has(code);
}

export function listeningPort(app: FastifyInstance): number {
  return (app.server.address() as AddressInfo).port;
}

export interface RawResponse {
  /** Everything the server wrote before it closed the connection (or the timeout hit). */
  text: string;
  status: number | null;
  headers: Record<string, string>;
  body: string;
  closed: boolean;
}

/** Writes bytes to a fresh connection and collects the reply until the server closes it. */
export function rawRequest(port: number, data: string | Buffer, timeoutMs = 3000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('end', () => {
      closed = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks).toString('latin1'), closed));
    });
    socket.write(data);
  });
}

function parseRaw(text: string, closed: boolean): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const body = split === -1 ? '' : text.slice(split + 4);
  const lines = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(lines[0] ?? '');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { text, status: m ? Number(m[1]) : null, headers, body, closed };
}
