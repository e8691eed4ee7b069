// What a kind of payment source is, for everything that lists, shows, adds or runs sources. Each kind
// exports one SourceKind from its folder (webhook/kind.ts, feed/kind.ts, snap/kind.ts) and kinds.ts lists
// them; the lists, the console, the CLI, the overview, app.ts and the workers loop over that list, so no
// code outside a kind's folder and the registry asks which type a source is.
import type { Actor } from '../domain/actor.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { CodeIssuer, Deps } from '../services/deps.js';
import type { SourceView } from '../services/sources/source-view.js';
import type { Mode, PaymentSourcesTable, SourceType } from '../storage/schema.js';
import type { Worker } from '../rounds/run-every.js';

/** What a kind adds to the common fields of a source's view (SourceView): never a secret. */
export type SourceDetails = Pick<
  SourceView,
  | 'url'
  | 'method'
  | 'headers'
  | 'body'
  | 'interval_seconds'
  | 'next_poll_at'
  | 'last_success_at'
  | 'last_error'
  | 'failures'
>;

/** `source add --type <kind>`: the kind's own options (e.g. --url) and what the command was given. */
export interface CliAddInput {
  merchant: string;
  mode: Mode;
  /** The values of this kind's options, by commander's name for them (`--url <url>` is `url`). */
  options: Readonly<Record<string, string | undefined>>;
  /** The values of a repeatable option (CliOption's third element), in the order given; [] when absent. */
  repeated(name: string): readonly string[];
  /** Reads a JSON file named by an option; a missing or malformed file is invalid_parameter. */
  readJson(path: string, param: string): unknown;
  actor: Actor;
  /** The name given (`--name`), already parsed by parseSourceName; stored with the source, in its unit of work. */
  name: string | null;
}

/** A `source add` option: [flags, description], and `repeatable` for one given several times (read with CliAddInput.repeated). */
export type CliOption = readonly [flags: string, description: string, repeatable?: 'repeatable'];

/** The console's add form, as posted: the merchant and mode chosen, the kind's own fields by name. */
export interface ConsoleAddInput {
  merchantId: string;
  mode: string;
  field(name: string): string;
  actor: Actor;
  /** The name typed, already parsed by parseSourceName; stored with the source, in its unit of work. */
  name: string | null;
}

/**
 * The kinds' own fields of the console's add form. The sources page knows how to show each (its input, its
 * words); each kind lists those it reads, so the page shows a field for exactly the kinds that use it.
 */
export type ConsoleField = 'url' | 'method' | 'headers' | 'body' | 'interval' | 'mapping';

/** What the console shows after adding a source: the page words for each shape live with the page. */
export type ConsoleAdded =
  /** A secret the sender signs with, shown on this one page only (never again); url is a path. */
  | { shows: 'secret'; id: string; secret: string; url: string }
  /** A polled source: the URL (masked) and the interval, in the notice after the redirect. */
  | { shows: 'polled'; id: string; url: string; intervalSeconds: number }
  /** A phone: the token and secret, shown on this one page only, with the Connect a phone card; url is a path. */
  | { shows: 'phone'; id: string; url: string; token: string; secret: string }
  /** A field of the form is missing (url, interval) or not JSON (mapping): nothing was stored. */
  | { shows: 'refused'; field: 'url' | 'interval' | 'mapping' };

/**
 * A post to a source's `/api/payment-sources/{id}/events`, as the one shared route (inbound-route.ts) hands
 * it to the source's kind: the body as the raw bytes sent (a signature covers exactly them, and nothing in
 * it is read before the kind has checked who sent it), the headers and the query as sent.
 */
export interface InboundPost {
  source: PaymentSourcesTable;
  /** The source's stored configuration, parsed (its secrets included: never log it). */
  config: Record<string, unknown>;
  body: Buffer;
  headers: IncomingHttpHeaders;
  query: Readonly<Record<string, unknown>>;
  log: FastifyBaseLogger;
}

/** What the shared route answers: the status and the JSON body the sender expects. */
export interface InboundAnswer {
  status: number;
  body: unknown;
}

/** How a kind that issues codes is asked for its issuer. */
export interface KindIssuer {
  /** The issuer of a merchant's new codes in a mode, or null when none of its sources serves them. Asked on every create: cheap. */
  forMerchant(deps: Deps, merchantId: string, mode: Mode): Promise<CodeIssuer | null>;
  /** The issuer of a code this source made, or null when it is no enabled source of this kind. */
  forSource(deps: Deps, sourceId: string): Promise<CodeIssuer | null>;
}

export interface SourceKind<T extends SourceType = SourceType> {
  /** Stored in payment_sources.type. */
  type: T;
  /** Its name on the console, in each console language. */
  label: { en: string; id: string };
  /** Its name in `qris-gateway source --help`. */
  cliName: string;
  /**
   * Polled by the gateway: its view carries the poll's health (shown on the console and the overview),
   * and re-enabling it polls it at once.
   */
  polled: boolean;
  /** Senders post to it: its view's url is a path under the public base URL. */
  inbound: boolean;
  /** It keeps the notifications it received (source_notifications), which the console lists under it. */
  notifications?: boolean;
  /** Its view beyond the common fields; `config` is its stored configuration, parsed. */
  details(row: PaymentSourcesTable, config: Record<string, unknown>): SourceDetails;
  /** Its own routes (a SNAP acquirer's token and notify paths), registered by app.ts. */
  routes?(app: FastifyInstance, deps: Deps): Promise<void>;
  /**
   * A post to the source's `/api/payment-sources/{id}/events` (an `inbound` kind's reports): verifies the
   * sender first (AppError `invalid_signature`, 401, storing nothing), then records each payment it carries.
   * The route has found the source enabled and of this kind.
   */
  receive?(deps: Deps, post: InboundPost): Promise<InboundAnswer>;
  /**
   * `source rotate ID`: issues new credentials, the previous ones accepted for a grace period (with its
   * audit row); the object `--json` prints, the new credentials shown once.
   */
  rotate?(deps: Deps, row: PaymentSourcesTable, actor: Actor): Promise<{ id: string } & Record<string, unknown>>;
  /**
   * `dev notify`: what its sender would post for a payment of `amount` reported by `app` (a phone's
   * notification from that app), signed with the source's own credentials.
   */
  simulate?: {
    apps: readonly string[];
    post(
      row: PaymentSourcesTable,
      input: { app: string; amount: number; now: number },
    ): { path: string; headers: Record<string, string>; body: string };
  };
  /** It issues merchants' codes itself (an acquirer): asked before the static QRIS (issuers.ts). */
  issuer?: KindIssuer;
  /** Its background job, started by every worker process. */
  worker?(deps: Deps): Worker;
  /** Added from the console's sources page too (else with the CLI only). */
  console?: {
    /** Only operators may add one (a feed: the gateway fetches its URL from inside its own network). */
    operatorOnly: boolean;
    /** The form's fields it reads (ConsoleAddInput.field), in the order the form shows them; [] for none. */
    fields: readonly ConsoleField[];
    /** Validates and stores it (with its audit row); invalid_parameter is shown as the form's error. */
    add(deps: Deps, input: ConsoleAddInput): Promise<ConsoleAdded>;
  };
  cli: {
    /** Its `source add` options, in the order the help lists them. */
    options: ReadonlyArray<CliOption>;
    /** Validates and stores a new source (with its audit row); the object `--json` prints. */
    add(deps: Deps, input: CliAddInput): Promise<{ id: string } & Record<string, unknown>>;
    /** The text `source add` prints for it. */
    describe(created: Record<string, unknown>): string;
  };
}
