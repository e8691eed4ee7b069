import type { Command } from 'commander';
import type { RowCounts } from '../../storage/backup-files.js';
import { restoreBackup } from '../../services/backups/restore-backup.js';
import { takeBackup } from '../../services/backups/take-backup.js';
import type { CliContext } from '../context.js';
import { emit } from '../output.js';

/** backup --to FILE and restore --from FILE (SQLite; on PostgreSQL both say pg_dump is the tool). */
export function registerBackupCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;

  program
    .command('backup')
    .description(
      'copy the SQLite database while gateways serve it, verified before it is reported (PostgreSQL: use pg_dump)',
    )
    .requiredOption('--to <file>', 'the new backup file')
    .option('--force', 'replace FILE if it exists')
    .option('--json', 'print JSON')
    .action(async (opts: { to: string; force?: boolean }) => {
      const report = await takeBackup(ctx.config().databaseUrl, opts.to, { force: opts.force === true });
      emit(io, json, { file: report.file, bytes: report.bytes, tables: report.tables }, () =>
        [`backup written and verified: ${report.file} (${report.bytes} bytes)`, ...tableLines(report.tables)].join(
          '\n',
        ),
      );
    });

  program
    .command('restore')
    .description(
      'replace the SQLite database with a backup; refused while any gateway has it open (PostgreSQL: use pg_restore)',
    )
    .requiredOption('--from <file>', 'the backup file')
    .option('--json', 'print JSON')
    .action(async (opts: { from: string }) => {
      const report = await restoreBackup(ctx.config().databaseUrl, opts.from, Date.now());
      emit(io, json, report, () =>
        [
          `restored ${report.database} from ${report.restored_from} (${report.bytes} bytes)`,
          report.kept ? `the replaced database is kept as ${report.kept}` : 'there was no database to replace',
          ...tableLines(report.tables),
        ].join('\n'),
      );
    });
}

function tableLines(tables: RowCounts): string[] {
  const width = Math.max(...Object.keys(tables).map((n) => n.length));
  return Object.entries(tables).map(([name, rows]) => `  ${name.padEnd(width)}  ${rows}`);
}
