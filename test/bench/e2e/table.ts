// The end-to-end bench's report: each stage's start and end (seconds from the upload's start),
// its length and rate, then the whole time, the daemon's peak RSS and the money figures.
export interface Stage {
  name: string;
  /** Epoch ms; undefined when the stage did not happen. */
  startMs: number | undefined;
  endMs: number | undefined;
  /** What the rate counts (entries, attempts, webhooks). */
  count: number;
  unit: string;
}

const sec = (ms: number | undefined, t0: number) => (ms === undefined ? '—' : ((ms - t0) / 1000).toFixed(1));

export function printStages(stages: Stage[], t0: number): void {
  const rows = stages.map((s) => {
    const len = s.startMs !== undefined && s.endMs !== undefined ? (s.endMs - s.startMs) / 1000 : undefined;
    const rate = len ? `${Math.round(s.count / len).toLocaleString('en-US')} ${s.unit}/s` : '—';
    return [s.name, sec(s.startMs, t0), sec(s.endMs, t0), len === undefined ? '—' : len.toFixed(1), `${s.count.toLocaleString('en-US')} ${s.unit}`, rate];
  });
  const head = ['stage', 'start s', 'end s', 'length s', 'count', 'rate'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `  | ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(head));
  console.log(`  |${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
