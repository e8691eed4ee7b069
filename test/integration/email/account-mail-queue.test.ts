// issue 23, finding 8: account mails are handed to a queue that sends them after the answer. Through a
// real SMTP server: post() returns at once, a relay's temporary refusal is tried again, and close()
// lets what is queued go out first.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountMailQueue } from '../../../src/mail/account-mail-queue.js';
import { renderAccountMail } from '../../../src/mail/account-mail.js';
import { createSmtpSender } from '../../../src/mail/smtp.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

const FROM = { name: 'Gateway', address: 'noreply@gateway.test' };

describe('the account mail queue', () => {
  let smtp: TestSmtpServer | undefined;
  afterEach(async () => smtp?.close());

  it('posts without waiting for the relay, tries a refused send again, and sends what is queued before closing', async () => {
    smtp = await startTestSmtpServer({ rejectFirst: 1, delayMs: 300 });
    const queue = new AccountMailQueue(createSmtpSender(smtp.url, FROM), pino({ level: 'silent' }), {
      retryDelaysMs: [50],
    });
    queue.post(
      renderAccountMail('reset', 'one@shop.test', 'http://gateway.test/dashboard/reset/confirm?token=x', 'acct-1'),
    );
    queue.post(
      renderAccountMail('verify', 'two@shop.test', 'http://gateway.test/dashboard/signup/verify?token=y', 'acct-2'),
    );
    // post() returned (it is synchronous) before the relay was offered either mail.
    expect(smtp.dataAttempts).toBe(0);
    await queue.idle();
    // The first try of the first mail got a 451; it went again after the second one.
    expect(smtp.dataAttempts).toBe(3);
    expect(smtp.messages.map((m) => m.to[0])).toEqual(['two@shop.test', 'one@shop.test']);
    // Closing lets a mail already queued go out first.
    queue.post(renderAccountMail('invite', 'four@shop.test', 'http://gateway.test/dashboard/invite?token=z', 'acct-4'));
    await queue.close();
    expect(smtp.messages.map((m) => m.to[0])).toEqual(['two@shop.test', 'one@shop.test', 'four@shop.test']);
    // Closed: nothing more is taken.
    queue.post(renderAccountMail('reset', 'three@shop.test', 'http://gateway.test/x', 'acct-3'));
    await queue.idle();
    expect(smtp.messages).toHaveLength(3);
  });
});
