// Small helpers shared by the benchmarks: timing a loop and printing a result beside its
// baseline as a ratio, so every figure is read against the same machine in the same run.
// A benchmark runs stages in its own process: it registers every stage's error codes, as
// src/main.ts does, before a stage under measure throws one.
import '../../src/catalogue.ts';
export interface Rate {
  label: string;
  count: number;
  seconds: number;
  perSecond: number;
}

export async function measure(label: string, count: number, body: () => unknown | Promise<unknown>): Promise<Rate> {
  const start = process.hrtime.bigint();
  await body();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { label, count, seconds, perSecond: count / seconds };
}

export function report(ours: Rate, baseline: Rate, target?: { perSecond: number }): void {
  const fmt = (r: Rate) => `${r.label}: ${Math.round(r.perSecond).toLocaleString('en-US')}/s (${r.count} in ${r.seconds.toFixed(2)} s)`;
  console.log(`  ${fmt(baseline)}  [baseline]`);
  console.log(`  ${fmt(ours)}`);
  console.log(`  ratio: ${(ours.perSecond / baseline.perSecond).toFixed(2)}x of baseline`);
  if (target) {
    const ok = ours.perSecond >= target.perSecond;
    console.log(`  target ≥ ${target.perSecond.toLocaleString('en-US')}/s: ${ok ? 'met' : 'NOT met'}`);
  }
}

export function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
