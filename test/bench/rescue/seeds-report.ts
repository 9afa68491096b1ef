// The figures of each strategy on each seed, their mean and 95 % interval over the seeds, and
// the paired comparison of rescued with each baseline (same seeds, same orders): where rescued
// wins, where it loses and where the seeds cannot tell them apart.
import type { CardEvent } from './bank.ts';
import type { Attempts } from './baselines.ts';
import type { Card } from './cards.ts';
import { addViolations, checkCard, emptyViolations, RULE_LABELS, RULES, type Violations } from './network-check.ts';
import type { Population } from './orders.ts';

export interface SeedFigures {
  orders: number;
  recoveredPct: number;
  amountPct: number;
  attempts: number;
  attemptsPerRecovery: number;
  violations: Violations;
  /**
   * Attempts that break a rule even with the merchant's own retries and the originals' advice
   * left out: what an engine that cannot read transaction.priorAttempts and
   * transaction.merchantAdviceCode still breaks by itself.
   */
  blindViolations: number;
  /** The same, per rule. */
  blindByRule: Violations;
}

export function seedFigures(pop: Population, attempts: Attempts): SeedFigures {
  let recovered = 0;
  let amount = 0;
  let recoveredAmount = 0;
  let tries = 0;
  const byCard = new Map<Card, CardEvent[]>();
  for (const o of pop.orders) {
    const mine = attempts.get(o.index) ?? [];
    amount += o.amount;
    tries += mine.length;
    if (mine.some((a) => a.approved)) {
      recovered++;
      recoveredAmount += o.amount;
    }
    byCard.set(o.card, [...(byCard.get(o.card) ?? pop.history.get(o.card)!), ...mine]);
  }
  const violations = emptyViolations();
  const blindByRule = emptyViolations();
  for (const [card, events] of byCard) {
    addViolations(violations, checkCard(card.brand, events));
    const blind = events.filter((e) => e.by !== 'merchant').map((e) => (e.by === 'original' ? { ...e, advice: undefined } : e));
    addViolations(blindByRule, checkCard(card.brand, blind));
  }
  const n = pop.orders.length;
  return { orders: n, recoveredPct: (recovered / n) * 100, amountPct: (recoveredAmount / amount) * 100, attempts: tries, attemptsPerRecovery: recovered === 0 ? Infinity : tries / recovered, violations, blindViolations: blindByRule.attempts, blindByRule };
}

// Student's t, two-sided 95 %, by degrees of freedom (1–30); beyond, the normal's 1.96 is close enough.
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
}

/** Mean and 95 % confidence interval of the mean over the seeds (t distribution). */
export function interval(xs: readonly number[]): Interval {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { mean, lo: mean, hi: mean };
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = (T95[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { mean, lo: mean - half, hi: mean + half };
}

const fmt = (i: Interval, digits: number, unit = '') => `${i.mean.toFixed(digits)}${unit} [${i.lo.toFixed(digits)}, ${i.hi.toFixed(digits)}]`;

export interface StrategyFigures {
  name: string;
  seeds: SeedFigures[];
}

/** Violations summed over the seeds, the total and per rule in one line. */
export function violationsLine(v: Violations): string {
  return `${v.attempts} (${RULES.filter((r) => v.byRule[r] > 0).map((r) => `${RULE_LABELS[r]} ${v.byRule[r]}`).join(', ') || 'none'})`;
}

export function sumViolations(seeds: readonly SeedFigures[], of: (f: SeedFigures) => Violations): Violations {
  const total = emptyViolations();
  for (const f of seeds) addViolations(total, of(f));
  return total;
}

export function formatSeedsTable(strategies: readonly StrategyFigures[]): string {
  const head = ['strategy', 'recovered orders % [95 % CI]', 'recovered amount % [95 % CI]', 'attempts / recovery [95 % CI]', 'violations', ...RULES.map((r) => RULE_LABELS[r]), 'V >15/30d (margin)'];
  const rows = strategies.map((s) => {
    const total = emptyViolations();
    for (const f of s.seeds) addViolations(total, f.violations);
    return [
      s.name, fmt(interval(s.seeds.map((f) => f.recoveredPct)), 2), fmt(interval(s.seeds.map((f) => f.amountPct)), 2), fmt(interval(s.seeds.map((f) => f.attemptsPerRecovery)), 2),
      String(total.attempts), ...RULES.map((r) => String(total.byRule[r])), String(total.visaOver15In30Days),
    ];
  });
  return markdownTable(head, rows);
}

const REASON_GROUPS: ReadonlyArray<[string, (r: string) => boolean]> = [
  ['insufficient funds, over limit (51, 61)', (r) => r === 'funds' || r === 'limit'],
  ['generic (05)', (r) => r === 'generic'],
  ['issuer unavailable (91, 96)', (r) => r === 'outage'],
  ['hard and data (expired, lost, closed, invalid, fraud, stop recurring)', (r) => !['funds', 'limit', 'generic', 'outage'].includes(r)],
];

/** Recovered orders % (attempts per order) by the card's reason, pooled over the seeds: where each strategy wins or loses. */
export function formatReasonTable(pops: readonly Population[], runs: ReadonlyArray<{ name: string; attempts: readonly Attempts[] }>): string {
  const rows = REASON_GROUPS.map(([label, inGroup]) => {
    const orders = pops.flatMap((p, i) => p.orders.filter((o) => inGroup(o.card.reason)).map((o) => ({ i, o })));
    const cells = runs.map((run) => {
      const mine = orders.map(({ i, o }) => run.attempts[i]!.get(o.index) ?? []);
      const ok = mine.filter((a) => a.some((e) => e.approved)).length;
      const tries = mine.reduce((s, a) => s + a.length, 0);
      return orders.length === 0 ? '–' : `${((ok / orders.length) * 100).toFixed(1)} % (${(tries / orders.length).toFixed(1)})`;
    });
    return [label, String(orders.length), ...cells];
  });
  return markdownTable(['card\'s reason', 'orders', ...runs.map((r) => r.name)], rows);
}

type Metric = { label: string; of: (f: SeedFigures) => number; higherIsBetter: boolean; unit: string };
const METRICS: readonly Metric[] = [
  { label: 'recovered orders', of: (f) => f.recoveredPct, higherIsBetter: true, unit: ' points' },
  { label: 'recovered amount', of: (f) => f.amountPct, higherIsBetter: true, unit: ' points' },
  { label: 'attempts per recovery', of: (f) => f.attemptsPerRecovery, higherIsBetter: false, unit: '' },
];

export interface Comparison {
  baseline: string;
  metric: string;
  verdict: 'wins' | 'loses' | 'no clear difference';
  line: string;
}

/** rescued against each baseline, paired by seed: the difference's mean and 95 % interval, and per-seed wins. */
export function compare(rescued: StrategyFigures, baselines: readonly StrategyFigures[]): Comparison[] {
  return baselines.flatMap((b) => METRICS.map((m): Comparison => {
    const diffs = rescued.seeds.map((f, i) => m.of(f) - m.of(b.seeds[i]!));
    const d = interval(diffs);
    const better = (x: number) => (m.higherIsBetter ? x > 0 : x < 0);
    const verdict = better(d.lo) && better(d.hi) ? 'wins' : !better(d.lo) && !better(d.hi) && d.lo !== 0 && d.hi !== 0 ? 'loses' : 'no clear difference';
    const seedsAhead = diffs.filter(better).length;
    const line = `${m.label} vs "${b.name}": rescued ${verdict === 'no clear difference' ? 'ties (no clear difference)' : verdict}, difference ${d.mean >= 0 ? '+' : ''}${fmt(d, 2, m.unit)}; ahead on ${seedsAhead} of ${diffs.length} seeds`;
    return { baseline: b.name, metric: m.label, verdict, line };
  }));
}

/** A Markdown table, columns padded so it also reads as plain text. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}
