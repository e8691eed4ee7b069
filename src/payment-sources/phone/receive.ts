import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import { recordNotification, type ReceivedNotification } from '../../services/sources/record-notification.js';
import type { InboundAnswer, InboundPost } from '../kind.js';
import { authenticatePhonePost, readCredentials } from './credentials.js';
import { parsePostedNotification } from './notification.js';
import { readNotification, type ReaderVerdict } from './readers/index.js';

const MINUTE = 60_000;

/**
 * A forwarder's post of one notification. Authenticated first (credentials.ts: an X-Signature of either
 * format, or the token), else 401 invalid_signature and nothing stored. Then every authenticated post is
 * kept and answered 200 with what the notification became, so no forwarder retries forever.
 */
export async function receivePhonePost(deps: Deps, post: InboundPost): Promise<InboundAnswer> {
  const credentials = readCredentials(post.config);
  if (credentials === null) throw new AppError('source_not_found', 'no such payment source');
  const now = deps.now();
  const auth = authenticatePhonePost(credentials, post, now);
  if (auth === null) {
    // Neither the token nor the signature is logged: the route's URL is redacted (http/redact.ts).
    post.log.warn({ source: post.source.id }, 'phone source: post not authenticated');
    throw new AppError(
      'invalid_signature',
      'sign the body (X-Signature: hex HMAC-SHA256 of the body with the secret) or send the token (Authorization: Bearer, or ?token=)',
    );
  }
  const posted = parsePostedNotification(post.body, post.headers);
  const notification = { title: posted?.title ?? '', text: posted?.text ?? '', app: posted?.app ?? null };
  const reading: ReaderVerdict =
    posted === null ? { ignored: 'unreadable', reader: null } : readNotification(notification, deps.config.amountMax);
  const appName = reading.reader?.name ?? notification.app;
  const input: ReceivedNotification = {
    source: {
      id: post.source.id,
      merchantId: post.source.merchant_id,
      mode: post.config.mode === 'test' ? 'test' : 'live',
    },
    app: appName,
    title: notification.title,
    text: notification.text,
    reading:
      'ignored' in reading
        ? { ignored: reading.ignored }
        : {
            payments: reading.payments.map((p) => ({
              amount: p.amount,
              // An app's own id makes a payment unique (a grouped notification repeating a line, the customer
              // app's copy); without one, the app, the line and the notification's time (else the minute it
              // arrived) do, so a forwarder's retry of the same post is the same payment.
              sourcePaymentId:
                p.transactionId !== null
                  ? `${reading.reader.name}:${p.transactionId}`
                  : `${reading.reader.name}:${createHash('sha256')
                      .update(`${p.line}\n${posted?.when ?? `~${Math.floor(now / MINUTE)}`}`)
                      .digest('hex')
                      .slice(0, 40)}`,
            })),
          },
    raw: {
      app: notification.app,
      title: notification.title,
      text: notification.text,
      when: posted?.when ?? null,
      auth,
    },
  };
  const results = await recordNotification(deps, input);
  return { status: 200, body: { success: true, data: { results } } };
}
