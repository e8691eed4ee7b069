// The port the mailer sends through. Services see only this, so tests and a future HTTP mail API can
// stand in for SMTP without touching the outbox logic.

export interface InlineImage {
  filename: string;
  contentType: string;
  /** Referenced from the HTML as `cid:<cid>`. */
  cid: string;
  content: Buffer;
}

export interface OutgoingMail {
  /** Stable per outbox row, so a receiver can drop the copy a retry sends after an unseen success. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: InlineImage[];
}

export interface MailSender {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Thrown by a sender when retrying cannot help (the relay refused the recipient outright). */
export class PermanentMailError extends Error {}

/** Thrown when the relay itself is unreachable or refuses us (connection, TLS, login): every mail would fail alike. */
export class RelayUnavailableError extends Error {}
