import { Option, type Command } from 'commander';
import { formatRupiah } from '../../domain/money.js';
import type { DailyReportRow, DailyReportTotals } from '../../domain/daily-report.js';
import { dailyReport } from '../../services/reports/daily-report.js';
import type { CliContext } from '../context.js';
import { emit } from '../output.js';

/** reports daily: the daily report of a range of WIB days (issue 28, section 3). */
export function registerReportCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const reports = program.command('reports').description('reports an accountant can use: daily figures by WIB day');

  reports
    .command('daily')
    .description(
      'per WIB day: the payments received, each in one of paid, on open transactions, unmatched, returned; succeeded refunds; every day of the range, zeros included',
    )
    .requiredOption('--from <date>', 'first WIB day, YYYY-MM-DD')
    .requiredOption('--to <date>', 'last WIB day, YYYY-MM-DD (at most 366 days after --from)')
    .option('--merchant <id>', 'only this merchant (default: every merchant, one row per merchant and day)')
    .addOption(new Option('--mode <mode>', 'live or test').choices(['live', 'test']).default('live'))
    .option('--json', 'print JSON: {from, to, mode, items: [one object per day], totals}')
    .action(async (opts: { from: string; to: string; merchant?: string; mode: string }) => {
      const report = await ctx.withDeps((deps) =>
        dailyReport(deps, null, { from: opts.from, to: opts.to, merchantId: opts.merchant ?? null, mode: opts.mode }),
      );
      const byMerchant = opts.merchant === undefined;
      emit(
        io,
        json,
        { from: report.from, to: report.to, mode: report.mode, items: report.rows, totals: report.totals },
        () =>
          [
            `daily report ${report.from} to ${report.to} (${report.mode}, days in WIB)`,
            ...report.rows.map((row) => line(row, byMerchant)),
            `total: ${figures(report.totals)}`,
          ].join('\n'),
      );
    });
}

function line(row: DailyReportRow, byMerchant: boolean): string {
  const who = byMerchant ? ` ${row.merchant_id}` : '';
  return `${row.day}${who}: ${figures(row)}`;
}

/** The money received and the one figure each payment is in, then the refunds. */
function figures(f: DailyReportTotals): string {
  return (
    `received ${f.received_count} ${formatRupiah(f.received_sum)} = ${f.paid_count} paid ${formatRupiah(f.paid_sum)}` +
    ` + ${f.received_open_count} on open transactions ${formatRupiah(f.received_open_sum)}` +
    ` + ${f.unmatched_count} unmatched ${formatRupiah(f.unmatched_sum)} + ${f.returned_count} returned ${formatRupiah(f.returned_sum)};` +
    ` refunded ${formatRupiah(f.refunded_sum)}`
  );
}
