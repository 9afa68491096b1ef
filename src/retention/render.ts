// The purge's report as `rescued purge` prints it: one row per class, aligned.
import { PURGE_CLASSES, type PurgeReport } from './purge.ts';

export function purgeText(report: PurgeReport): string {
  const head = report.dryRun ? `would remove, counting back from ${report.at} (dry run: nothing removed)` : `removed, counting back from ${report.at}`;
  const rows = PURGE_CLASSES.map((c) => [c, report.classes[c].cutoff, String(report.classes[c].count)]);
  const all = [['class', 'older than', report.dryRun ? 'would go' : 'removed'], ...rows];
  const width = [0, 1].map((i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => `${r[0]!.padEnd(width[0]!)}  ${r[1]!.padEnd(width[1]!)}  ${r[2]!.padStart(8)}`;
  return [head, ...all.map(line)].join('\n');
}
