// The gateway as a SNAP token issuer: acquirers that sign notifications symmetrically first take a B2B
// token from the merchant (POST <notify base>/v1.0/access-token/b2b), signed with the acquirer's RSA
// key over `clientId|timestamp`; the notification is then HMAC-signed with that token.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../services/deps.js';
import { insertSnapToken, snapTokenByHash } from '../../storage/queries/snap.js';
import type { SnapSource } from './config.js';
import {
  type SnapReply,
  TOKEN_LIFETIME_SECONDS,
  hashToken,
  header,
  parseObject,
  reject,
  signedPath,
  timestampProblem,
  tokenPathFor,
} from './inbound.js';
import { verifyAccessToken } from './signature.js';
import { allSnapSources } from './sources.js';

export type TokenAnswer = SnapReply | { accessToken: string; expiresIn: number };

export async function issueGatewayToken(deps: Deps, request: FastifyRequest, raw: string): Promise<TokenAnswer> {
  const path = signedPath(request);
  const clientKey = header(request, 'X-CLIENT-KEY');
  const timestamp = header(request, 'X-TIMESTAMP');
  const signature = header(request, 'X-SIGNATURE');
  if (clientKey === null) return reject.mandatory('X-CLIENT-KEY');
  if (timestamp === null) return reject.mandatory('X-TIMESTAMP');
  if (signature === null) return reject.unauthorized('Signature');

  const candidates = (await allSnapSources(deps)).filter(
    (s) =>
      s.config.notifyVerification === 'symmetric' &&
      s.config.clientId === clientKey &&
      tokenPathFor(s.config.notifyPath) === path,
  );
  // One answer for "unknown client" and "bad signature", so client ids cannot be probed.
  const source = candidates.find((s) => verifyAccessToken(s.acquirerPublicKey, clientKey, timestamp, signature));
  if (!source) return reject.unauthorized('Signature');
  const late = timestampProblem(timestamp, deps.now(), source.config.timestampWindowSeconds);
  if (late) return late;

  const body = parseObject(raw);
  if (body === null) return reject.badRequest('the body is not a JSON object');
  if (body.grantType === undefined) return reject.mandatory('grantType');
  if (body.grantType !== 'client_credentials') return reject.format('grantType');

  const accessToken = randomBytes(32).toString('base64url');
  await insertSnapToken(deps.db, {
    tokenHash: hashToken(accessToken),
    sourceId: source.id,
    expiresAt: deps.now() + TOKEN_LIFETIME_SECONDS * 1000,
  });
  return { accessToken, expiresIn: TOKEN_LIFETIME_SECONDS };
}

/**
 * The sources a bearer token issued by issueGatewayToken speaks for: its own, and any other symmetric
 * source on the same path sharing its client credentials (an aggregator serving several merchants).
 */
export async function sourcesOfToken(
  deps: Deps,
  token: string,
  candidates: SnapSource[],
): Promise<SnapSource[] | null> {
  const row = await snapTokenByHash(deps.db, hashToken(token));
  if (!row || row.expires_at <= deps.now()) return null;
  const owner = candidates.find((s) => s.id === row.source_id);
  if (!owner) return null;
  return candidates.filter(
    (s) =>
      s.config.notifyVerification === 'symmetric' &&
      s.config.clientId === owner.config.clientId &&
      s.config.clientSecret === owner.config.clientSecret,
  );
}
