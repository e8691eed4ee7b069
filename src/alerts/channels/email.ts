import { PermanentMailError } from '../../mail/sender.js';
import { alertEmail } from '../../presentation/notify-messages.js';
import { ownerEmails } from '../../services/notify/owner-emails.js';
import { type AlertSender, failed } from './common.js';

/** One e-mail to each of the merchant's users (each sees only its own address). */
export const sendEmailAlert: AlertSender = async (context, alert, facts) => {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (context.mail === null) return failed('e-mail is not set up (SMTP_URL)', { permanent: true });
  const recipients = await ownerEmails(context.deps, alert.merchantId);
  if (recipients.length === 0) return failed('the merchant has no console users to e-mail', { permanent: true });
  const mail = alertEmail(facts, alert.language);
  const refused: string[] = [];
  for (const [i, to] of recipients.entries()) {
    try {
      // Stable per alert and recipient, so a copy a retry sends after an unseen success can be dropped.
      await context.mail.send({ messageId: `${alert.id}.${i}`, to, ...mail, attachments: [] });
    } catch (err) {
      if (!(err instanceof PermanentMailError)) throw err;
      refused.push(to);
    }
  }
  if (refused.length === recipients.length)
    return failed(`every recipient was refused: ${refused.join(', ')}`, { permanent: true, durationMs: took() });
  return {
    result: 'succeeded',
    statusCode: null,
    error: refused.length === 0 ? null : `refused: ${refused.join(', ')}`,
    retryAfterMs: null,
    durationMs: took(),
  };
};
