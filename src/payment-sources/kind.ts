// What a kind of payment source is, for everything that lists, shows, adds or runs sources. Each kind
// exports one SourceKind from its folder (webhook/kind.ts, feed/kind.ts, snap/kind.ts) and kinds.ts lists
// them; the lists, the console, the CLI, the overview, app.ts and the workers loop over that list, so no
// code outside a kind's folder and the registry asks which type a source is.
import type { Actor } from '../domain/actor.js';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../services/deps.js';
import type { SourceView } from '../services/sources/source-view.js';
import type { Mode, PaymentSourcesTable, SourceType } from '../storage/schema.js';
import type { Worker } from '../workers/run-every.js';

/** What a kind adds to the common fields of a source's view (SourceView): never a secret. */
export type SourceDetails = Pick<SourceView, 'url' | 'interval_seconds' | 'next_poll_at' | 'last_success_at' | 'last_error' | 'failures'>;

/** `source add --type <kind>`: the kind's own options (e.g. --url) and what the command was given. */
export interface CliAddInput {
  merchant: string;
  mode: Mode;
  /** The values of this kind's options, by commander's name for them (`--url <url>` is `url`). */
  options: Readonly<Record<string, string | undefined>>;
  /** Reads a JSON file named by an option; a missing or malformed file is invalid_parameter. */
  readJson(path: string, param: string): unknown;
  actor: Actor;
}

/** The console's add form, as posted: the merchant and mode chosen, the kind's own fields by name. */
export interface ConsoleAddInput {
  merchantId: string;
  mode: string;
  field(name: string): string;
  actor: Actor;
}

/**
 * The kinds' own fields of the console's add form. The sources page knows how to show each (its input, its
 * words); each kind lists those it reads, so the page shows a field for exactly the kinds that use it.
 */
export type ConsoleField = 'url' | 'interval' | 'mapping';

/** What the console shows after adding a source: the page words for each shape live with the page. */
export type ConsoleAdded =
  /** A secret the sender signs with, shown on this one page only (never again); url is a path. */
  | { shows: 'secret'; id: string; secret: string; url: string }
  /** A polled source: the URL (masked) and the interval, in the notice after the redirect. */
  | { shows: 'polled'; id: string; url: string; intervalSeconds: number }
  /** A field of the form is missing (url, interval) or not JSON (mapping): nothing was stored. */
  | { shows: 'refused'; field: ConsoleField };

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
  /** Its view beyond the common fields; `config` is its stored configuration, parsed. */
  details(row: PaymentSourcesTable, config: Record<string, unknown>): SourceDetails;
  /** Its routes (inbound reports), registered by app.ts. */
  routes?(app: FastifyInstance, deps: Deps): Promise<void>;
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
    /** Its `source add` options, [flags, description], in the order the help lists them. */
    options: ReadonlyArray<readonly [string, string]>;
    /** Validates and stores a new source (with its audit row); the object `--json` prints. */
    add(deps: Deps, input: CliAddInput): Promise<{ id: string } & Record<string, unknown>>;
    /** The text `source add` prints for it. */
    describe(created: Record<string, unknown>): string;
  };
}
