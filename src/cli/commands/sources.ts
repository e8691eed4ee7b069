import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { parseSourceName, SOURCE_NAME_MAX } from '../../domain/source-name.js';
import { rotateSource, sourceKind, sourceKinds, sourceTypes } from '../../payment-sources/kinds.js';
import { listSources } from '../../services/sources/list-sources.js';
import { setSourceEnabled } from '../../services/sources/set-source-enabled.js';
import type { SourceView } from '../../services/sources/source-view.js';
import type { SourceType } from '../../storage/schema.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

/** The options of `source add`: the common ones, then each kind's own (--url, --config, ...); a repeatable one is a list. */
interface AddOptions extends Record<string, string | string[] | undefined> {
  merchant: string;
  type: SourceType;
  mode: 'test' | 'live';
}

/** "a, b or c" */
const oneOf = (words: readonly string[]): string =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;

/** source add|list|enable|disable (payment sources). */
export function registerSourceCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const source = program
    .command('source')
    .description(`payment sources: ${sourceKinds.map((k) => k.cliName).join(', ')}`);

  const add = source
    .command('add')
    .description('add a payment source to a merchant (a webhook secret is shown only now)')
    .requiredOption('--merchant <id>', 'merchant id')
    .addOption(new Option('--type <type>', oneOf(sourceTypes)).choices(sourceTypes).makeOptionMandatory())
    .addOption(
      new Option('--mode <mode>', 'which transactions its payments pay').choices(['test', 'live']).default('live'),
    )
    .option(
      '--name <name>',
      `what people call it, shown instead of its id (e.g. 'HP kasir'; up to ${SOURCE_NAME_MAX} characters, no link)`,
    );
  // Kinds may share an option (the bank-mutation kinds' --secret): each is listed once.
  const listed = new Set<string>();
  for (const kind of sourceKinds) {
    for (const [flags, description, repeatable] of kind.cli.options) {
      if (listed.has(flags)) continue;
      listed.add(flags);
      if (repeatable === undefined) add.option(flags, description);
      else
        add.option(flags, `${description} (repeatable)`, (value: string, previous: string[] | undefined) => [
          ...(previous ?? []),
          value,
        ]);
    }
  }
  add.option('--json', 'print JSON').action(async (opts: AddOptions) => {
    const actor = ctx.actor();
    const kind = sourceKind(opts.type);
    // Refused before anything is stored.
    const name = parseSourceName(typeof opts.name === 'string' ? opts.name : undefined);
    // The setup writes its audit row (source.add) with the source, in one database transaction.
    const created = await ctx.withDeps((deps) =>
      kind.cli.add(deps, {
        merchant: opts.merchant,
        mode: opts.mode,
        options: Object.fromEntries(
          Object.entries(opts).filter((e): e is [string, string | undefined] => !Array.isArray(e[1])),
        ),
        repeated: (name) => {
          const value = opts[name];
          return Array.isArray(value) ? value : [];
        },
        readJson: readJsonFile,
        actor,
        name,
      }),
    );
    const shown = name === null ? created : { ...created, name };
    emit(io, json, shown, () =>
      name === null ? kind.cli.describe(created) : `${kind.cli.describe(created)}\n  name: ${name}`,
    );
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

  source
    .command('rotate <id>')
    .description(
      "issue a phone source's new token and secret (shown only now); the old ones stay valid for PHONE_ROTATE_GRACE_SECONDS",
    )
    .option('--json', 'print JSON')
    .action(async (id: string) => {
      const actor = ctx.actor();
      const rotated = await ctx.withDeps((deps) => rotateSource(deps, id, actor));
      emit(io, json, rotated, () =>
        [
          `rotated source ${rotated.id}`,
          ...Object.entries(rotated)
            .filter(([key]) => key !== 'id')
            .map(([key, value]) => `  ${key}: ${String(value)}`),
          '  (shown only now; update the phone before the old ones expire)',
        ].join('\n'),
      );
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
    throw new AppError('invalid_parameter', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, {
      param,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_parameter', `${path} is not valid JSON`, { param });
  }
}

function sourceLine(s: SourceView): string {
  const parts = [
    s.id,
    ...(s.name === null ? [] : [JSON.stringify(s.name)]),
    s.type,
    s.mode,
    s.merchant_id,
    s.enabled ? 'enabled' : 'disabled',
  ];
  if (s.method !== undefined && s.method !== 'GET') parts.push(s.method);
  if (s.url) parts.push(s.url);
  for (const [name, value] of Object.entries(s.headers ?? {})) parts.push(`${name}: ${value}`);
  if (s.body) parts.push(`body ${s.body}`);
  if (s.interval_seconds !== undefined) parts.push(`every ${s.interval_seconds}s`);
  if (s.last_error) parts.push(`last error: ${s.last_error}`);
  return parts.join('  ');
}
