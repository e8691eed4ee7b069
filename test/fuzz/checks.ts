// What every answer to a hostile request must be (issue 23, "the project's own hostile-input suite").
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors.js';
import { statusFor } from '../../src/wire/error-status.js';
import type { FuzzRequest } from './generators.js';
import type { FuzzAnswer } from './send.js';

const KNOWN_CODES = new Set<string>(ERROR_CODES);
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,64}$/;

// What must never reach a client: where the code lives, how it failed, what the database said.
const LEAKS: ReadonlyArray<readonly [string, RegExp]> = [
  ['an internal path', /\/work\/|\/home\/|\/usr\/src\//],
  ['node_modules', /node_modules/],
  ['a source path', /\bsrc\//],
  [
    'a stack frame',
    /\bat (?:async )?\S+(?: \[as \S+\])? \((?:file:\/\/|node:|\/)[^)\s]*:\d+:\d+\)|(?:^|\n|\\n)\s*at (?:async )?(?:file:\/\/|node:|\/)[^\s)]*:\d+:\d+/,
  ],
  ['a .ts position', /\.ts:\d+/],
  [
    'a database error',
    /SQLITE_[A-Z]|Kysely|duplicate key value|syntax error at or near|relation "\w+" does not exist|violates \w+ constraint/,
  ],
  ['a system file', /root:x:0:0|\[boot loader\]/],
];

// Bodies that are our own shipped files (scripts, styles, images, the API explorer's bundle), not answers.
const STATIC_TYPES = /^(?:application\/javascript|text\/javascript|text\/css|image\/|font\/|application\/octet-stream)/;

/** Reasons this answer breaks the suite's rules; none when it is fine. */
export function problemsOf(req: FuzzRequest, answer: FuzzAnswer): string[] {
  if (answer.error !== null) return [answer.error];
  const status = answer.status!;
  const problems: string[] = [];
  if (status >= 500 && !(status === 503 && answer.headers['retry-after'] !== undefined))
    problems.push(`${status} answer: ${JSON.stringify(answer.body.slice(0, 160))}`);
  const type = String(answer.headers['content-type'] ?? '');
  if (!STATIC_TYPES.test(type)) {
    for (const [what, pattern] of LEAKS) {
      const m = pattern.exec(answer.body);
      if (m && !reflects(req, m[0]))
        problems.push(
          `${what} in the answer: ${JSON.stringify(answer.body.slice(Math.max(0, m.index - 60), m.index + 80))}`,
        );
    }
  }
  for (const [name, value] of Object.entries(answer.headers)) {
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (/node_modules|\/work\/|\.ts:\d+/.test(text) && !reflects(req, text))
      problems.push(`internals in the ${name} header`);
  }
  if (isApiPath(req.path)) {
    const problem = apiEnvelopeProblem(status, answer.headers, answer.body, req.method, req.path);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** True when the text was in the request itself, so that an answer echoing it (escaped) is no leak. */
function reflects(req: FuzzRequest, text: string): boolean {
  const sent = [
    req.path,
    safeDecode(req.path),
    ...Object.values(req.headers),
    req.body?.toString('latin1') ?? '',
    req.body?.toString('utf8') ?? '',
  ].join('\n');
  return sent.includes(text) || sent.includes(text.trim());
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

const isApiPath = (path: string) => /^\/api\/(?:api\/)?payment-gateway\//.test(path);

/**
 * The invariant of the whole API: the common headers always, and either a success or the error envelope
 * with a known code whose HTTP status is the one error-status.ts maps it to; never a 5xx but the
 * documented 503 with Retry-After. Null when the answer keeps it.
 */
export function apiEnvelopeProblem(
  status: number,
  headers: Record<string, unknown>,
  body: string,
  method: string,
  path: string,
): string | null {
  if (headers['x-api-version'] !== '1.0.0') return 'X-Api-Version missing';
  if (headers['cache-control'] !== 'no-store') return 'Cache-Control missing';
  if (!REQUEST_ID_SHAPE.test(String(headers['x-request-id']))) return 'X-Request-Id missing';
  if (method === 'HEAD') return status >= 500 ? '5xx' : null;
  const type = String(headers['content-type'] ?? '');
  if (type.startsWith('image/'))
    return status === 200 && path.includes('/qr/') ? null : 'an image from somewhere other than the QR route';
  if (!type.startsWith('application/json')) return `not JSON: ${type}`;
  let parsed: { success?: unknown; data?: unknown; error?: Record<string, unknown> };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return 'body is not JSON';
  }
  if (parsed.success === true) {
    if (status !== 200 && status !== 201) return 'success with a non-2xx status';
    if (typeof parsed.data !== 'object' || parsed.data === null) return 'success without data';
    return null;
  }
  if (parsed.success !== false || typeof parsed.error !== 'object' || parsed.error === null)
    return 'neither success nor error envelope';
  const { code, message, request_id: requestId } = parsed.error;
  if (typeof code !== 'string' || !KNOWN_CODES.has(code)) return `unknown error code ${String(code)}`;
  if (typeof message !== 'string' || message.length === 0) return 'error without a message';
  if (requestId !== headers['x-request-id']) return 'error.request_id differs from X-Request-Id';
  if (statusFor(code as ErrorCode) !== status) return `status ${status} does not match the code ${code}`;
  if (status >= 500 && (code !== 'unique_code_exhausted' || headers['retry-after'] === undefined)) return '5xx';
  if (/at .*\.(ts|js):\d+|node_modules|Kysely|SQLITE_/i.test(message)) return 'internals in the message';
  return null;
}
