import type { Actor } from '../../domain/actor.js';
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { listSources, type SourceView } from '../../payment-sources/list-sources.js';
import { setSourceEnabled } from '../../payment-sources/set-source-enabled.js';
import { addFeedSource } from '../../payment-sources/feed/setup.js';
import { addSnapSource } from '../../payment-sources/snap/setup.js';
import { addWebhookSource } from '../../payment-sources/webhook/setup.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

interface AddOptions {
  merchant: string;
  type: 'webhook' | 'feed' | 'snap';
  mode: 'test' | 'live';
  url?: string;
  interval?: string;
  mapping?: string;
  config?: string;
}

/** source add|list|enable|disable (payment sources). */
export function registerSourceCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const source = program.command('source').description('payment sources: signed webhook, mutation feed, SNAP BI');

  source
    .command('add')
    .description('add a payment source to a merchant (a webhook secret is shown only now)')
    .requiredOption('--merchant <id>', 'merchant id')
    .addOption(new Option('--type <type>', 'webhook, feed or snap').choices(['webhook', 'feed', 'snap']).makeOptionMandatory())
    .addOption(new Option('--mode <mode>', 'which transactions its payments pay').choices(['test', 'live']).default('live'))
    .option('--url <url>', 'feed: the URL to poll')
    .option('--interval <seconds>', 'feed: seconds between polls')
    .option('--mapping <file>', 'feed: JSON field mapping over the OrderKuota-style defaults')
    .option('--config <file>', 'snap: the SNAP BI configuration JSON')
    .option('--json', 'print JSON')
    .action(async (opts: AddOptions) => {
      const actor = ctx.actor();
      // The setup writes its audit row (source.add) with the source, in one database transaction.
      const created = await ctx.withDeps((deps) => addSource(deps, opts, actor));
      emit(io, json, created, () => describeCreated(opts.type, created));
    });

  source
    .command('list')
    .option('--merchant <id>', 'only this merchant')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant?: string }) => {
      const items = await ctx.withDeps((deps) => listSources(deps, opts.merchant));
      emitItems(io, json, items, 'no payment sources', sourceLine);
    });

  for (const [name, enabled] of [['enable', true], ['disable', false]] as const) {
    source
      .command(`${name} <id>`)
      .description(enabled ? 'start using a source again' : 'stop accepting or polling a source')
      .option('--json', 'print JSON')
      .action(async (id: string) => {
        const actor = ctx.actor();
        const view = await ctx.withDeps((deps) => setSourceEnabled(deps, { id, enabled, actor }));
        emit(io, json, view, () => sourceLine(view));
      });
  }
}

async function addSource(deps: Parameters<typeof addWebhookSource>[0], opts: AddOptions, actor: Actor): Promise<{ id: string } & Record<string, unknown>> {
  switch (opts.type) {
    case 'webhook':
      // Exactly id, secret and url: scripts read this object.
      return { ...(await addWebhookSource(deps, { merchantId: opts.merchant, mode: opts.mode, actor })) };
    case 'feed':
      if (!opts.url) throw new AppError('invalid_parameter', '--url is required for a feed', { param: 'url' });
      if (!opts.interval) throw new AppError('invalid_parameter', '--interval is required for a feed', { param: 'interval' });
      return {
        ...(await addFeedSource(deps, {
          merchantId: opts.merchant,
          mode: opts.mode,
          url: opts.url,
          intervalSeconds: opts.interval,
          mapping: opts.mapping === undefined ? undefined : readJsonFile(opts.mapping, 'mapping'),
          actor,
        })),
      };
    case 'snap': {
      if (!opts.config) throw new AppError('invalid_parameter', '--config FILE is required for a SNAP source', { param: 'config' });
      // Printed as the SNAP setup returns it (at least the id): its shape is that module's to define.
      return { ...(await addSnapSource(deps, opts.merchant, readJsonFile(opts.config, 'config'), actor)) };
    }
  }
}

function readJsonFile(path: string, param: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AppError('invalid_parameter', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { param });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_parameter', `${path} is not valid JSON`, { param });
  }
}

function describeCreated(type: AddOptions['type'], created: Record<string, unknown>): string {
  if (type === 'webhook') {
    return [
      `created webhook source ${String(created.id)}`,
      `  POST ${String(created.url)} (under your public base URL)`,
      `  secret: ${String(created.secret)}`,
      '  (the secret is shown only now; sign with X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">)',
    ].join('\n');
  }
  if (type === 'feed') return `created feed source ${String(created.id)}: polls ${String(created.url)} every ${String(created.interval_seconds)} s`;
  return `created ${type} source ${String(created.id)}`;
}

function sourceLine(s: SourceView): string {
  const parts = [s.id, s.type, s.mode, s.merchant_id, s.enabled ? 'enabled' : 'disabled'];
  if (s.url) parts.push(s.url);
  if (s.interval_seconds !== undefined) parts.push(`every ${s.interval_seconds}s`);
  if (s.last_error) parts.push(`last error: ${s.last_error}`);
  return parts.join('  ');
}
