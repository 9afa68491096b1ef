// `rescued report [--merchant <mid>] [--since <time>] [--json|--csv]`: the recovery figures
// of src/reports/, the same object the console shows and GET /v1/reports/recovery answers.
// On a terminal, a report that takes more than a second shows how many of its parts are done
// (stderr, one line redrawn); piped or redirected, it prints only the report.
import { Option, type Command } from 'commander';
import { recoveryReport, REPORT_PARTS } from '../reports/recovery.ts';
import { parseSince } from '../reports/since.ts';
import { reportCsv, reportText } from '../reports/render.ts';
import { withReader, ioOf } from './context.ts';
import { merchantByMid } from './merchant-ref.ts';
import { cliProgress } from './progress.ts';

/** Nothing is drawn for a report that ends within this; a slow one redraws at this pace. */
const PROGRESS_INTERVAL_MS = 1000;

interface ReportOpts {
  merchant?: string;
  since?: string;
  json?: boolean;
  csv?: boolean;
}

export function reportCommand(program: Command): void {
  program
    .command('report')
    .description('recovery figures: orders by state, recovered amount and rate (overall, by decline reason, card brand, merchant), attempts per day (done and planned), queue, webhook backlog, batches in progress, learned timing (best and worst local hours per decline)')
    .option('--merchant <mid>', "only this merchant's figures")
    .option('--since <time>', 'orders created, and attempts started, since this time (ISO 8601) or for this long back (24h, 30d); default: every order, attempts of the last 30 days')
    .addOption(new Option('--json', 'print JSON (the object GET /v1/reports/recovery answers)').conflicts('csv'))
    .addOption(new Option('--csv', 'print the recovery breakdown as CSV: one row per group, amounts per currency in major units'))
    .action((opts: ReportOpts) =>
      withReader(program, async (core, print) => {
        const now = new Date();
        const since = parseSince(opts.since, now);
        const merchant = opts.merchant ? await merchantByMid(core, opts.merchant) : undefined;
        const progress = cliProgress(ioOf(program), 'report', { total: REPORT_PARTS, unit: 'parts', intervalMs: PROGRESS_INTERVAL_MS, ticking: true });
        let report;
        try {
          report = await recoveryReport(core.database.db, { merchantId: merchant?.id, mid: merchant?.mid ?? null, since, now, onStep: (done) => progress.update(done) });
        } finally {
          progress.finish();
        }
        if (opts.json) print(report, true);
        else print(opts.csv ? reportCsv(report) : reportText(report));
      }),
    );
}
