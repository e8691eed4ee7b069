import { AppError } from '../../domain/errors.js';
import type { MailSender } from '../../mail/sender.js';

/** Sends an account mail at once; a relay that fails is the caller's 503 (an operator's invitation). */
export async function sendAccountMail(mail: MailSender, outgoing: Parameters<MailSender['send']>[0]): Promise<void> {
  try {
    await mail.send(outgoing);
  } catch {
    throw new AppError('service_unavailable', 'the e-mail could not be sent just now; try again in a minute', {
      retryAfter: 60,
    });
  }
}
