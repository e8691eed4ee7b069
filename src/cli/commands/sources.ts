import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { sourceKind, sourceKinds, sourceTypes } from '../../payment-sources/kinds.js';
import { listSources } from '../../services/sources/list-sources.js';
import { setSourceEnabled } from '../../services/sources/set-source-enabled.js';
import type { SourceView } from '../../services/sources/source-view.js';
import type { SourceType } from '../../storage/schema.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

/** The options of `source add`: the common ones, then each kind's own (--url, --config, ...). */
interface AddOptions extends Record<string, string | undefined> {
  merchant: string;
  type: SourceType;
  mode: 'test' | 'live';
}

/** "a, b or c" */
const oneOf = (words: readonly string[]): string => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`);

/** source add|list|enable|disable (payment sources). */
export function registerSourceCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const source = program.command('source').description(`payment sources: ${sourceKinds.map((k) => k.cliName).join(', ')}`);

  const add = source
    .command('add')
    .description('add a payment source to a merchant (a webhook secret is shown only now)')
    .requiredOption('--merchant <id>', 'merchant id')
    .addOption(new Option('--type <type>', oneOf(sourceTypes)).choices(sourceTypes).makeOptionMandatory())
    .addOption(new Option('--mode <mode>', 'which transactions its payments pay').choices(['test', 'live']).default('live'));
  for (const kind of sourceKinds) for (const [flags, description] of kind.cli.options) add.option(flags, description);
  add.option('--json', 'print JSON').action(async (opts: AddOptions) => {
    const actor = ctx.actor();
    const kind = sourceKind(opts.type);
    // The setup writes its audit row (source.add) with the source, in one database transaction.
    const created = await ctx.withDeps((deps) =>
      kind.cli.add(deps, { merchant: opts.merchant, mode: opts.mode, options: opts, readJson: readJsonFile, actor }),
    );
    emit(io, json, created, () => kind.cli.describe(created));
  });

  source
    .command('list')
    .description('list payment sources (no secrets)')
    .option('--merchant <id>', 'only this merchant')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant?: string }) => {
      const items = await ctx.withDeps((deps) => listSources(deps, opts.merchant));
      emitItems(io, json, items, 'no payment sources', sourceLine);
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
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

function sourceLine(s: SourceView): string {
  const parts = [s.id, s.type, s.mode, s.merchant_id, s.enabled ? 'enabled' : 'disabled'];
  if (s.url) parts.push(s.url);
  if (s.interval_seconds !== undefined) parts.push(`every ${s.interval_seconds}s`);
  if (s.last_error) parts.push(`last error: ${s.last_error}`);
  return parts.join('  ');
}
