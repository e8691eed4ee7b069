// A payment source as operators see it, and the port through which services learn what each kind of
// source shows. The kinds themselves live in src/payment-sources/ (which services never import); their
// registry implements SourceCatalog and is handed in through Deps, as the code issuers are.
import type { Mode, PaymentSourcesTable, SourceType } from '../../storage/schema.js';

export interface SourceView {
  id: string;
  /** What people call it (domain/source-name.ts), or null. */
  name: string | null;
  merchant_id: string;
  type: SourceType;
  mode: Mode;
  enabled: boolean;
  created_at: string;
  /** Webhook: the events path; feed: the polled URL with credentials and query values masked. */
  url: string | null;
  /** Feed: how it is asked (GET or POST). */
  method?: string;
  /** Feed: the headers sent with each poll, names kept and values masked. */
  headers?: Record<string, string>;
  /** Feed: a POST's body, masked ("***"), or null when it sends none. */
  body?: string | null;
  interval_seconds?: number;
  next_poll_at?: string | null;
  last_success_at?: string | null;
  last_error?: string | null;
  failures?: number;
}

export interface SourceCatalog {
  /** The view of a stored source: never a secret, a key or a token. */
  present(row: PaymentSourcesTable): SourceView;
  /** Whether the gateway polls sources of this type (re-enabling one then polls it at once). */
  isPolled(type: SourceType): boolean;
}
