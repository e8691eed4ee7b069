// Customer e-mail is optional and only used for receipts, so we accept the common, unambiguous subset
// of RFC 5321/5322 (dot-atom local part, hostname domain) and reject the rest with a precise reason
// rather than storing something no mail server will deliver to.
import { AppError } from './errors.js';

const MAX_TOTAL = 254; // RFC 5321 path limit (256) minus the angle brackets
const MAX_LOCAL = 64;
const MAX_LABEL = 63;

const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]$/;
const LABEL = /^[A-Za-z0-9-]+$/;

export function parseEmail(raw: unknown, param = 'email'): string | null {
  if (raw === undefined || raw === null) return null;
  const fail = (message: string): never => {
    throw new AppError('invalid_email', message, { param });
  };
  if (typeof raw !== 'string') return fail(`${param} must be a string`);
  if (raw === '') return fail(`${param} is empty`);

  // Character-class checks first: they explain most garbage (pasted spaces, newlines, IDN) better
  // than a structural error would.
  if (/[\x00-\x1F\x7F]/.test(raw)) return fail(`${param} must not contain control characters`);
  if (/\s/.test(raw)) return fail(`${param} must not contain whitespace`);
  if (/[^\x00-\x7F]/.test(raw)) {
    return fail(`${param} must contain only ASCII characters (internationalised addresses are not supported)`);
  }
  if (raw.length > MAX_TOTAL) return fail(`${param} is longer than ${MAX_TOTAL} characters`);

  if (raw.startsWith('"')) return fail(`${param} local part must not be quoted (quoted local parts are not supported)`);
  const at = raw.split('@');
  if (at.length === 1) return fail(`${param} must contain '@'`);
  if (at.length > 2) {
    return fail(`${param} must contain exactly one '@' (quoted local parts, which may contain '@', are not supported)`);
  }
  const [local = '', domain = ''] = at;

  checkLocal(local, param, fail);
  checkDomain(domain, param, fail);
  return `${local}@${domain.toLowerCase()}`;
}

function checkLocal(local: string, param: string, fail: (m: string) => never): void {
  if (local === '') fail(`${param} has nothing before '@'`);
  if (local.length > MAX_LOCAL) fail(`${param} local part is longer than ${MAX_LOCAL} characters`);
  if (local.includes('"')) fail(`${param} local part must not contain '"' (quoted local parts are not supported)`);
  if (local.startsWith('.') || local.endsWith('.')) fail(`${param} local part must not start or end with '.'`);
  if (local.includes('..')) fail(`${param} local part must not contain consecutive dots`);
  for (const ch of local) {
    if (ch !== '.' && !ATEXT.test(ch)) fail(`${param} local part must not contain '${ch}'`);
  }
}

function checkDomain(domain: string, param: string, fail: (m: string) => never): void {
  if (domain === '') fail(`${param} has no domain after '@'`);
  if (domain.startsWith('[')) fail(`${param} domain must be a host name (IP-literal domains are not supported)`);
  const labels = domain.split('.');
  if (labels.some((l) => l === ''))
    fail(`${param} domain must not have empty labels (leading, trailing or double dots)`);
  for (const label of labels) {
    if (!LABEL.test(label)) fail(`${param} domain may contain only letters, digits, '-' and '.'`);
    if (label.length > MAX_LABEL) fail(`${param} domain label is longer than ${MAX_LABEL} characters`);
    if (label.startsWith('-') || label.endsWith('-')) fail(`${param} domain label must not start or end with '-'`);
  }
  if (labels.length < 2) fail(`${param} domain must have at least two labels, e.g. example.com`);
  const tld = labels[labels.length - 1] ?? '';
  if (!/^[A-Za-z]{2,}$/.test(tld)) {
    fail(`${param} top-level domain must be at least 2 letters (IP addresses are not supported)`);
  }
}

/** Addresses are compared without regard to case: one mailbox, one account. */
export function normaliseEmail(raw: string): string {
  return parseEmail(raw.trim(), 'email')!.toLowerCase();
}
