// A purge run with what it leaves behind: the metrics and one log line of what went (counts
// per class, never a row's content). The daemon's sweep and `rescued purge` both run this.
import type { Logger } from '../log.ts';
import { purgedTotal, purgeLastDone, purgeRuns } from '../metrics.ts';
import { PURGE_CLASSES, runPurge, type PurgeDeps, type PurgeOptions, type PurgeReport } from './purge.ts';

export async function purgeAndRecord(deps: PurgeDeps, log: Logger, opts: PurgeOptions): Promise<PurgeReport | undefined> {
  const t0 = Date.now();
  let report: PurgeReport | undefined;
  try {
    report = await runPurge(deps, opts);
  } catch (err) {
    if (!opts.dryRun) purgeRuns.inc({ result: 'failed' });
    throw err;
  }
  if (opts.dryRun) return report;
  if (!report) {
    purgeRuns.inc({ result: 'skipped' });
    log.debug('purge skipped: another instance holds its lock');
    return undefined;
  }
  const removed: Partial<Record<string, number>> = {};
  for (const c of PURGE_CLASSES) {
    const n = report.classes[c].count;
    if (n > 0) removed[c] = n;
    purgedTotal.inc({ class: c }, n);
  }
  purgeRuns.inc({ result: 'done' });
  purgeLastDone.set(Date.now() / 1000);
  const line = { removed, ms: Date.now() - t0, at: report.at };
  if (Object.keys(removed).length > 0) log.info(line, 'purge: removed data past its retention');
  else log.debug(line, 'purge: nothing past its retention');
  return report;
}
