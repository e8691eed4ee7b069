import { hash } from 'node:crypto';

// The single-use links the console mails (confirm an address, reset a password, accept an invitation):
// what a token may look like, and the hash that is all the database keeps of it.

export const hashLinkToken = (token: string): string => hash('sha256', token, 'hex');

/** A link's token as it may arrive: anything else is not looked up at all. */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;
