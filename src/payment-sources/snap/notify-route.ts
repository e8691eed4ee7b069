import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { isAppError } from '../../domain/errors.js';
import { statusFor } from '../../wire/error-status.js';
import type { Deps } from '../../services/deps.js';
import { notifiedTransaction, rememberSnapExternalId, snapExternalIdSeen } from '../../storage/queries/snap.js';
import { outcomeOf, type SnapSource } from './config.js';
import { issueGatewayToken, sourcesOfToken } from './gateway-token.js';
import {
  SnapReply,
  TOKEN_SUFFIX,
  contentTypeProblem,
  header,
  jakartaDay,
  parseObject,
  reject,
  sendSnap,
  signedPath,
  timestampProblem,
} from './inbound.js';
import { FactError, paymentFacts, recordSnapPayment } from './record.js';
import { verifyAsymmetric, verifySymmetric } from './signature.js';
import { allSnapSources } from './sources.js';

const NOTIFY = '52';
const TOKEN = '73';
const OK = new SnapReply(200, '00', 'Successful');

/**
 * SNAP BI QR MPM payment notifications from acquirers (default POST /snap/v1.0/qr/qr-mpm-notify) and
 * the B2B token endpoint for acquirers that sign notifications symmetrically. One wildcard route
 * serves every source's notifyPath, so a source added by the CLI works without a restart.
 *
 * Which source a notification belongs to: the sources whose notifyPath is the request path are the
 * candidates; the signature is checked against each (the acquirer's public key, or the secret behind
 * the bearer token) before anything in the body is used; the transaction is then looked up by the
 * acquirer reference among the transactions of the sources that verified. Several merchants of one
 * acquirer can thus share the default path and the acquirer's key.
 */
export async function snapNotifyRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(async (scope) => {
    // The raw text is needed: the signature covers the sender's bytes, and malformed JSON must get a
    // SNAP answer rather than the framework's.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      const service = signedPath(request).endsWith(TOKEN_SUFFIX) ? TOKEN : NOTIFY;
      const answer = refusalOf(err, deps.config.bodyLimitBytes);
      // A 503 (the database or its disk unavailable, the process overloaded) is a passing state the acquirer
      // retries through, not a fault of ours to page about: a warning.
      if (answer.status === 503)
        request.log.warn({ err, responseCode: answer.responseCode(service) }, 'SNAP request refused for now');
      else if (answer.status >= 500) request.log.error({ err }, 'SNAP inbound request failed');
      else
        request.log.warn({ responseCode: answer.responseCode(service), why: answer.message }, 'SNAP request refused');
      if (isAppError(err) && err.retryAfter !== undefined) reply.header('Retry-After', String(err.retryAfter));
      return sendSnap(reply, service, answer);
    });

    scope.post('/snap/*', { schema: { hide: true } }, async (request, reply) => {
      const raw = typeof request.body === 'string' ? request.body : '';
      const wrongType = contentTypeProblem(request);
      if (wrongType !== null)
        return sendSnap(reply, signedPath(request).endsWith(TOKEN_SUFFIX) ? TOKEN : NOTIFY, wrongType);
      if (signedPath(request).endsWith(TOKEN_SUFFIX)) {
        const answer = await issueGatewayToken(deps, request, raw);
        if (answer instanceof SnapReply) return sendSnap(reply, TOKEN, answer);
        return sendSnap(reply, TOKEN, new SnapReply(200, '00', 'Successful'), {
          accessToken: answer.accessToken,
          tokenType: 'Bearer',
          expiresIn: String(answer.expiresIn),
        });
      }
      const answer = await handleNotification(deps, request, raw);
      if (answer.status >= 400)
        request.log.warn(
          { responseCode: answer.responseCode(NOTIFY), why: answer.message },
          'SNAP notification refused',
        );
      return sendSnap(reply, NOTIFY, answer);
    });
  });
}

/**
 * What a request refused before the route ran is told in SNAP's words: a request the gateway will not
 * read (an over-long URL, a body over the limit or of an unreadable type) is SNAP's 400 "Bad Request"
 * or "Invalid Field Format", never its 500 "General Error"; only a real failure, or the gateway being
 * unavailable (503, with Retry-After), is a 5xx.
 */
function refusalOf(err: FastifyError, bodyLimitBytes: number): SnapReply {
  if (isAppError(err)) {
    const status = statusFor(err.code);
    if (status < 500) return reject.badRequest(err.message);
    return status === 503 ? new SnapReply(503, '00', 'Service Unavailable') : new SnapReply(500, '00', 'General Error');
  }
  const status = err.statusCode ?? 500;
  if (status === 413) return reject.badRequest(`the body is larger than ${bodyLimitBytes} bytes`);
  if (status === 415) return reject.format('Content-Type');
  if (status >= 400 && status < 500) return reject.badRequest('the request could not be read');
  return new SnapReply(500, '00', 'General Error');
}

async function handleNotification(deps: Deps, request: FastifyRequest, raw: string): Promise<SnapReply> {
  const path = signedPath(request);
  const candidates = (await allSnapSources(deps)).filter((s) => s.config.notifyPath === path);
  if (candidates.length === 0) return new SnapReply(404, '00', 'Not Found');

  const timestamp = header(request, 'X-TIMESTAMP');
  const signature = header(request, 'X-SIGNATURE');
  if (timestamp === null) return reject.mandatory('X-TIMESTAMP');
  if (signature === null) return reject.unauthorized('Signature');

  // 1. The signature, before anything in the body is believed.
  const verified = await verifiedSources(
    deps,
    request,
    candidates,
    { method: 'POST', path, body: raw, timestamp },
    signature,
  );
  if (verified instanceof SnapReply) return verified;
  const fresh = verified.filter(
    (s) => timestampProblem(timestamp, deps.now(), s.config.timestampWindowSeconds) === null,
  );
  if (fresh.length === 0) return timestampProblem(timestamp, deps.now(), verified[0]!.config.timestampWindowSeconds)!;

  // 2. The message.
  const externalId = header(request, 'X-EXTERNAL-ID');
  if (externalId === null) return reject.mandatory('X-EXTERNAL-ID');
  if (externalId.length > 36) return reject.format('X-EXTERNAL-ID');
  const body = parseObject(raw);
  if (body === null) return reject.badRequest('the body is not a JSON object');
  const referenceNo = optionalText(body.originalReferenceNo);
  const partnerReferenceNo = optionalText(body.originalPartnerReferenceNo);
  if (referenceNo === undefined) return reject.format('originalReferenceNo');
  if (partnerReferenceNo === undefined) return reject.format('originalPartnerReferenceNo');
  if (referenceNo === null && partnerReferenceNo === null) return reject.mandatory('originalReferenceNo');
  const status = body.latestTransactionStatus;
  if (status === undefined || status === null || status === '') return reject.mandatory('latestTransactionStatus');
  if (typeof status !== 'string' || !/^[0-9]{2}$/.test(status)) return reject.format('latestTransactionStatus');
  let facts: ReturnType<typeof paymentFacts>;
  try {
    facts = paymentFacts(body);
  } catch (err) {
    if (err instanceof FactError) return reject.format(err.field);
    throw err;
  }

  // 3. The transaction, among those of the sources that signed.
  const tx = await notifiedTransaction(
    deps.db,
    { merchantIds: [...new Set(fresh.map((s) => s.merchantId))], sourceIds: fresh.map((s) => s.id) },
    referenceNo !== null ? { referenceNo } : { transactionId: partnerReferenceNo! },
  );
  if (!tx || (partnerReferenceNo !== null && partnerReferenceNo !== tx.id)) return reject.notFound();
  const source = fresh.find((s) => s.id === tx.source_id)!;

  const day = jakartaDay(deps.now());
  if (await snapExternalIdSeen(deps.db, { sourceId: source.id, day, externalId })) return reject.conflict();

  if (outcomeOf(source.config, status) === 'paid') {
    const result = await recordSnapPayment(deps, source, tx, facts, { notification: body });
    request.log.info({ trxid: tx.id, source: source.id, outcome: result.outcome }, 'SNAP notification recorded');
  }
  // Written only once the notification is handled: an acquirer retrying after our failure is not
  // refused as a duplicate. Two identical notifications racing both pass and dedupe in record-payment.
  await rememberSnapExternalId(deps.db, { sourceId: source.id, day, externalId, createdAt: deps.now() });
  return OK;
}

/** The candidates whose key (or token and secret) verifies the signature, or the refusal. */
async function verifiedSources(
  deps: Deps,
  request: FastifyRequest,
  candidates: SnapSource[],
  parts: { method: string; path: string; body: string; timestamp: string },
  signature: string,
): Promise<SnapSource[] | SnapReply> {
  const verified: SnapSource[] = [];
  // Sources of one acquirer share its public key: verify each distinct key once.
  const byKey = new Map<string, boolean>();
  for (const s of candidates.filter((c) => c.config.notifyVerification === 'asymmetric')) {
    let ok = byKey.get(s.config.acquirerPublicKeyPem);
    if (ok === undefined) {
      ok = verifyAsymmetric(s.acquirerPublicKey, parts, signature);
      byKey.set(s.config.acquirerPublicKeyPem, ok);
    }
    if (ok) verified.push(s);
  }
  const symmetric = candidates.filter((c) => c.config.notifyVerification === 'symmetric');
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(request, 'Authorization') ?? '')?.[1];
  if (symmetric.length > 0 && bearer !== undefined) {
    const holders = await sourcesOfToken(deps, bearer, symmetric);
    if (holders === null && verified.length === 0) return reject.token();
    for (const s of holders ?? []) {
      if (verifySymmetric(s.config.clientSecret, { ...parts, accessToken: bearer }, signature)) verified.push(s);
    }
  }
  return verified.length > 0 ? verified : reject.unauthorized('Signature');
}

/** A string field: its value, null when absent or empty, undefined when present but not a string. */
function optionalText(v: unknown): string | null | undefined {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'string' && v.length <= 64 ? v : undefined;
}
