// A merchant's name in this gateway. It is shown to payers: on the checkout page, on payment links, and
// in the subject and text of the invoice and receipt the gateway mails from the operator's MAIL_FROM. So
// it may carry no link and no address, read as a mail client would show it (link-text.ts, the rule shared
// with refunds' reasons): a name like "Account BLOCKED, restore at http://..." would make the gateway's
// own mail a phishing mail.
import { AppError } from './errors.js';
import { LINK_OR_ADDRESS, readsAsLinkOrAddress } from './link-text.js';

export const MERCHANT_NAME_MAX = 100;

export type MerchantNameProblem = 'length' | 'control' | 'link';

const CONTROL = /\p{Cc}/u;

/** Why a (trimmed) name is refused, or null when it is fine. */
export function merchantNameProblem(name: string): MerchantNameProblem | null {
  if (name.length === 0 || name.length > MERCHANT_NAME_MAX) return 'length';
  if (CONTROL.test(name)) return 'control';
  if (readsAsLinkOrAddress(name)) return 'link';
  return null;
}

const MESSAGES: Record<MerchantNameProblem, string> = {
  length: `name must be 1 to ${MERCHANT_NAME_MAX} characters`,
  control: 'name must not contain control characters (line breaks, tabs)',
  link: `name must not contain ${LINK_OR_ADDRESS}; after a full stop, write a space ("CV. Sinar", not "CV.Sinar")`,
};

/** A merchant's name as typed, trimmed; AppError invalid_parameter (param name) saying why otherwise. */
export function parseMerchantName(raw: string): string {
  const name = raw.trim();
  const problem = merchantNameProblem(name);
  if (problem !== null) throw new AppError('invalid_parameter', MESSAGES[problem], { param: 'name' });
  return name;
}

/**
 * The merchant's name as payers read it in the gateway's mail: the name its QRIS carries, which the
 * checkout page and the payer's bank app show too. A QRIS's name was never checked as the gateway's
 * name is (a real one may read "CV.SINAR"), so one that reads as a link or an address gives way to the
 * gateway's name, which was: the operator's mail never carries a link the operator did not write.
 */
export function payerMerchantName(merchant: { qrisName: string; name: string }): string {
  const qrisName = merchant.qrisName.trim();
  return merchantNameProblem(qrisName) === null ? qrisName : merchant.name;
}
