import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { loadConfig, type Config, type Role } from '../config.js';
import type { Env } from '../settings/kit.js';
import { withEnvFile } from '../env-file.js';
import { AppError } from '../domain/errors.js';
import { formatRupiah } from '../domain/money.js';
import { describeQris, parseQris, type QrisFieldDescription } from '../domain/qris/index.js';
import { presentTransaction } from '../domain/transaction.js';
import { openRuntime } from '../runtime.js';
import { createApiKey } from '../services/merchants/create-api-key.js';
import { listApiKeys } from '../services/merchants/list-api-keys.js';
import { revokeApiKey } from '../services/merchants/revoke-api-key.js';
import { createMerchant } from '../services/merchants/create-merchant.js';
import { demoStaticQris } from '../domain/demo-qris.js';
import { listMerchants } from '../services/merchants/list-merchants.js';
import { setDailyQuota } from '../services/merchants/set-daily-quota.js';
import { setUniqueCodeMode } from '../services/merchants/set-unique-code-mode.js';
import type { Deps } from '../services/deps.js';
import { cliActor } from './cli-actor.js';
import type { Actor } from '../domain/actor.js';
import { getTransactionById } from '../services/transactions/get-transaction-by-id.js';
import { serve } from '../server.js';
import { stopOnSignal } from './stop-on-signal.js';
import { simulatePayment } from '../payment-sources/simulator.js';
import { emit, emitError, emitItems, processIo, type Io } from './output.js';
import { linkBaseNote, noteLinkBase } from './link-base-note.js';
import type { CliContext } from './context.js';
import { registerSourceCommands } from './commands/sources.js';
import { registerPaymentCommands } from './commands/payments.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { registerNotifyCommands } from './commands/notify.js';
import { registerDevCommands } from './commands/dev.js';
import { registerTransactionCommands } from './commands/transactions.js';
import { registerUserCommands } from './commands/users.js';
import { registerBackupCommands } from './commands/backups.js';
import { registerReportCommands } from './commands/reports.js';
import { setDailyReportMail } from '../services/reports/set-daily-report-email.js';

export interface CliOptions {
  /** Where `.env` is looked for (the process entry point gives its working directory); null: only ENV_FILE. */
  envFileDir?: string | null;
}

/** Runs one CLI invocation and resolves to its exit code (the process entry point exits with it). */
export async function runCli(
  argv: string[],
  io: Io = processIo,
  processEnv: Env = process.env,
  options: CliOptions = {},
): Promise<number> {
  let exitCode = 0;
  const json = argv.includes('--json');
  // A malformed .env fails the commands that read settings, not --help or qris decode.
  let env = processEnv;
  let envFileError: unknown = null;
  try {
    env = withEnvFile(processEnv, options.envFileDir ?? null);
  } catch (err) {
    envFileError = err;
  }
  const settings = (): Config => {
    if (envFileError) throw envFileError;
    return loadConfig(env);
  };
  // Every command but serve says once, on stderr, which base its links use when PUBLIC_BASE_URL is unset.
  let linkNoteWritten = false;
  const config = (): Config => {
    const read = settings();
    return noteLinkBase(read, linkBaseNote(processEnv, env, read.publicBaseUrl), (note) => {
      if (linkNoteWritten) return;
      linkNoteWritten = true;
      io.err(note);
    });
  };

  async function withDeps<T>(fn: (deps: Deps) => Promise<T>): Promise<T> {
    const runtime = await openRuntime(config());
    try {
      return await fn(runtime.deps);
    } finally {
      await runtime.close();
    }
  }

  // The operator's actor, made once per command (on first use: settings are read only when needed).
  let operator: Actor | null = null;
  const actor = (): Actor => (operator ??= cliActor(config().operator));
  const ctx: CliContext = { io, json, config, settings, env, actor, withDeps };
  const program = buildProgram(ctx);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; usage errors were already printed by commander.
      exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
    } else {
      emitError(io, json, err);
      exitCode = 1;
    }
  }
  return exitCode;
}

/** Every command, each with a one-line description (test/integration/cli/cli-help.test.ts walks the tree). */
export function buildProgram(ctx: CliContext): Command {
  const { io, json, config, settings: serveSettings, actor, withDeps } = ctx;
  const program = new Command('qris-gateway')
    .description('Self-hostable QRIS payment gateway')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('serve')
    .description('run the HTTP API (migrates first)')
    .addOption(new Option('--role <role>', 'api, worker or all').choices(['api', 'worker', 'all']).default('all'))
    .action(async (opts: { role: Role }) => {
      const settings = serveSettings();
      const server = await serve(settings, { role: opts.role, cli: cliCommand() });
      await stopOnSignal(server, settings.shutdownTimeoutMs);
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .option('--json', 'print JSON')
    .action(async () => {
      const url = config().databaseUrl.replace(/\/\/[^@/]*@/, '//***@');
      const runtime = await openRuntime(config());
      await runtime.close();
      const { applied, backup } = runtime.migrated;
      emit(io, json, { migrated: true, database: url, applied, backup }, () =>
        [
          ...(applied.length > 0
            ? [`applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`]
            : []),
          ...(backup !== null ? [`the database as it was before them is copied to ${backup}`] : []),
          `database is up to date (${url})`,
        ].join('\n'),
      );
    });

  const merchant = program
    .command('merchant')
    .description('merchants and their static QRIS: add, list, quota, daily-report, update');
  merchant
    .command('add')
    .description('add a merchant from its static QRIS (checked and decoded first); audited')
    .requiredOption('--name <name>', "the merchant's name in this gateway")
    .requiredOption('--qris <payload>', "the merchant's static QRIS payload")
    .option(
      '--allow-duplicate-nmid',
      'save it even if a merchant with the same NMID exists (refused with duplicate_nmid otherwise); audited',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; qris: string; allowDuplicateNmid?: boolean }) => {
      const input = {
        name: opts.name,
        qris: opts.qris,
        allowDuplicateNmid: opts.allowDuplicateNmid === true,
        actor: actor(),
      };
      const row = await withDeps((deps) => createMerchant(deps, input));
      const view = merchantView(row);
      emit(
        io,
        json,
        view,
        () =>
          `created merchant ${row.id} (${row.merchant_name}, ${row.merchant_city}${row.nmid ? `, NMID ${row.nmid}` : ''})`,
      );
    });
  merchant
    .command('list')
    .description('list the merchants, oldest first, with their NMID')
    .option('--payload', "print each merchant's static QRIS under its line (--json always has it, as qris)")
    .option('--json', 'print JSON')
    .action(async (opts: { payload?: boolean }) => {
      const rows = await withDeps((deps) => listMerchants(deps));
      emitItems(io, json, rows.map(merchantView), 'no merchants', (r) => {
        const line = `${r.id}  ${r.name}  (${r.merchant_name}, ${r.merchant_city}${r.nmid ? `, NMID ${r.nmid}` : ''})`;
        return opts.payload ? `${line}\n    ${r.qris}` : line;
      });
    });
  merchant
    .command('quota <merchant>')
    .description("set a merchant's daily create quota (WIB days), or remove it with --daily unlimited; audited")
    .requiredOption('--daily <n>', 'transactions a day, or unlimited')
    .option('--json', 'print JSON')
    .action(async (merchantId: string, opts: { daily: string }) => {
      const quota =
        opts.daily === 'unlimited' ? null : /^[0-9]{1,8}$/.test(opts.daily) ? Number(opts.daily) : Number.NaN;
      if (Number.isNaN(quota))
        throw new AppError('invalid_parameter', '--daily must be a whole number or unlimited', { param: 'daily' });
      await withDeps((deps) => setDailyQuota(deps, merchantId, quota, actor()));
      emit(
        io,
        json,
        { merchant_id: merchantId, daily_create_quota: quota },
        () => `${merchantId}: ${quota === null ? 'no daily quota' : `${quota} creates a day (WIB)`}`,
      );
    });

  merchant
    .command('daily-report <merchant> <on_or_off>')
    .description("mail yesterday's report to the merchant's owners after midnight WIB (on), or stop (off); audited")
    .option('--json', 'print JSON')
    .action(async (merchantId: string, onOrOff: string) => {
      if (onOrOff !== 'on' && onOrOff !== 'off')
        throw new AppError('invalid_parameter', 'say on or off', { param: 'daily_report' });
      await withDeps((deps) => setDailyReportMail(deps, null, merchantId, onOrOff === 'on', actor()));
      emit(
        io,
        json,
        { merchant_id: merchantId, daily_report_email: onOrOff === 'on' },
        () => `${merchantId}: daily report e-mail ${onOrOff}`,
      );
    });

  merchant
    .command('update <merchant>')
    .description(
      "change a merchant's settings: --unique-code add (the code is added to the price) or subtract (taken off it, so the payer never pays more than the price); audited",
    )
    .addOption(new Option('--unique-code <mode>', 'add or subtract').choices(['add', 'subtract']).makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (merchantId: string, opts: { uniqueCode: string }) => {
      const mode = await withDeps((deps) => setUniqueCodeMode(deps, null, merchantId, opts.uniqueCode, actor()));
      emit(
        io,
        json,
        { merchant_id: merchantId, unique_code_mode: mode },
        () => `${merchantId}: the unique code is ${mode === 'add' ? 'added to' : 'subtracted from'} the price`,
      );
    });

  const key = program.command('key').description('API keys: create, list, revoke');
  key
    .command('create')
    .description('make a test or live API key for a merchant, shown only now; audited')
    .requiredOption('--merchant <id>', 'merchant id')
    .addOption(new Option('--mode <mode>', 'test or live').choices(['test', 'live']).makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (opts: { merchant: string; mode: 'test' | 'live' }) => {
      const created = await withDeps((deps) =>
        createApiKey(deps, { merchantId: opts.merchant, mode: opts.mode, actor: actor() }),
      );
      emit(io, json, created, () => `${created.key}\n(key ${created.id}; shown only now, store it safely)`);
    });
  key
    .command('list')
    .description('list API keys (prefix, mode, merchant, state; never the key)')
    .option('--merchant <id>', 'only this merchant')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant?: string }) => {
      const rows = await withDeps((deps) => listApiKeys(deps, opts.merchant));
      emitItems(
        io,
        json,
        rows,
        'no keys',
        (k) =>
          `${k.id}  ${k.prefix}  ${k.mode}  ${k.merchant_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`,
      );
    });
  key
    .command('revoke <id>')
    .description('revoke an API key by its id; other running servers stop taking it within 5 s; audited')
    .option('--json', 'print JSON')
    .action(async (id: string) => {
      const row = await withDeps((deps) => revokeApiKey(deps, id, actor()));
      emit(io, json, row, () => `revoked ${row.id} (${row.prefix})`);
    });

  const qris = program.command('qris').description('QRIS payload tools: decode, sample');
  qris
    .command('sample')
    .description(
      "print a valid static QRIS to try decode and merchant add with (the sandbox merchant's: fictional, no wallet pays it)",
    )
    .option('--json', 'print JSON')
    .action(() => {
      // Built in, not read from the database: the sandbox merchant is made from this same payload.
      const payload = demoStaticQris();
      const parsed = parseQris(payload);
      emit(
        io,
        json,
        { payload, merchant_name: parsed.merchantName, merchant_city: parsed.merchantCity, nmid: parsed.nmid },
        () => payload,
      );
    });
  qris
    .command('decode <payload>')
    .description('check a QRIS payload (tags, CRC) and explain each field')
    .option('--json', 'print JSON')
    .action(async (payload: string) => {
      const parsed = parseQris(payload.trim());
      const { fields: _fields, ...summary } = parsed;
      const fields = describeQris(parsed);
      emit(io, json, { ...summary, fields }, () => humanQris(parsed.payload, fields, summary));
    });

  program
    .command('pay <trxid>')
    .description('simulate the payment of a sandbox (test-mode) transaction')
    .option('--amount <rupiah>', 'pay another amount than due')
    .option('--json', 'print JSON')
    .action(async (trxid: string, opts: { amount?: string }) => {
      // Checked before the database is opened: a typo costs nothing and pays nothing.
      if (opts.amount !== undefined && (!/^[0-9]{1,9}$/.test(opts.amount) || Number(opts.amount) < 1)) {
        throw new AppError('invalid_amount', '--amount must be whole rupiah', { param: 'amount' });
      }
      const amount = opts.amount === undefined ? null : Number(opts.amount);
      const view = await withDeps(async (deps) => {
        const tx = await getTransactionById(deps, trxid);
        const result = await simulatePayment(deps, { merchantId: tx.merchant_id, mode: tx.mode }, trxid, amount);
        return presentTransaction(result.transaction, result.payment, deps.now(), deps.config.publicBaseUrl);
      });
      emit(
        io,
        json,
        view,
        () => `${view.trxid} is ${view.status}${view.paid_late ? ' (late)' : ''}: ${formatRupiah(view.total_amount)}`,
      );
    });

  registerTransactionCommands(program, ctx);
  registerUserCommands(program, ctx);
  registerSourceCommands(program, ctx);
  registerPaymentCommands(program, ctx);
  registerWebhookCommands(program, ctx);
  registerNotifyCommands(program, ctx);
  registerDevCommands(program, ctx);
  registerBackupCommands(program, ctx);
  registerReportCommands(program, ctx);
  return program;
}

/**
 * How the banner's hints say to run a command, so it can be pasted where the server was started: the
 * README's form in the checkout's own folder, the entry point's path from another folder (a `.env` there
 * is read again), the installed command otherwise.
 */
function cliCommand(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!existsSync(join(root, 'src', 'cli'))) return 'qris-gateway';
  return resolve(process.cwd()) === resolve(root)
    ? 'npm run -s cli --'
    : `node ${join(root, 'bin', 'qris-gateway.mjs')}`;
}

// package.json sits two folders above this file both in src/cli and in dist/cli.
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function merchantView(row: {
  id: string;
  name: string;
  qris_static: string;
  merchant_name: string;
  merchant_city: string;
  nmid: string | null;
  acquirer: string | null;
  created_at: number;
}) {
  return {
    id: row.id,
    name: row.name,
    merchant_name: row.merchant_name,
    merchant_city: row.merchant_city,
    nmid: row.nmid,
    acquirer: row.acquirer,
    qris: row.qris_static,
    created_at: new Date(row.created_at).toISOString(),
  };
}

function humanQris(payload: string, fields: QrisFieldDescription[], summary: Record<string, unknown>): string {
  const lines = [`payload: ${payload}`];
  for (const [k, v] of Object.entries(summary))
    if (k !== 'payload') lines.push(`${k}: ${v === null ? '-' : String(v)}`);
  lines.push('fields:');
  const walk = (items: QrisFieldDescription[], depth: number) => {
    for (const f of items) {
      lines.push(`${'  '.repeat(depth + 1)}${f.tag} ${f.name}: ${f.children ? '' : f.value}`);
      if (f.children) walk(f.children, depth + 1);
    }
  };
  walk(fields, 0);
  return lines.join('\n');
}
