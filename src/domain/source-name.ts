// A payment source's name ("HP kasir", "BCA toko"): what owners and cashiers call it, shown where its id
// was. Held to a merchant's name's rules (merchant-name.ts): no control characters, and no link or
// address (a name is shown in the console and the daily report's mail), and shorter.
import { AppError } from './errors.js';
import { LINK_OR_ADDRESS, readsAsLinkOrAddress } from './link-text.js';

export const SOURCE_NAME_MAX = 60;

const CONTROL = /\p{Cc}/u;

/** A source's name as typed, trimmed; null for none (empty); AppError invalid_parameter (param name) saying why it is refused. */
export function parseSourceName(raw: string | null | undefined): string | null {
  const name = (raw ?? '').trim();
  if (name === '') return null;
  const refuse = (message: string) => new AppError('invalid_parameter', message, { param: 'name' });
  if (name.length > SOURCE_NAME_MAX) throw refuse(`name must be at most ${SOURCE_NAME_MAX} characters`);
  if (CONTROL.test(name)) throw refuse('name must not contain control characters (line breaks, tabs)');
  if (readsAsLinkOrAddress(name)) throw refuse(`name must not contain ${LINK_OR_ADDRESS}`);
  return name;
}
