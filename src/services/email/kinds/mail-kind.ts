import type { RenderedMail } from '../../../mail/templates.js';
import type { EmailsTable } from '../../../storage/schema.js';
import type { Deps } from '../../deps.js';

/** What a queued e-mail comes to when its time comes: the mail to send, or why none is sent. */
export type Composed = { mail: RenderedMail } | { skipped: string } | { failed: string };

/** One kind of e-mail (the part of the row's kind before any `:`): how a row of it is composed. */
export interface MailKind {
  compose(deps: Deps, row: EmailsTable): Promise<Composed>;
}
