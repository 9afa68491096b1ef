// The figures of the --card-updates variants: per variant, recovered orders and amount (mean
// and 95 % interval over the seeds), the gain over (a) paired by seed, attempts per recovery,
// network-rule violations (every card the payer holds judged on its own history, by the
// independent checker), and the recovered amount per cause (orders.recovered_by).
import type { OrderOutcome, UpdatesRun } from './card-updates-run.ts';
import { addViolations, checkCard, emptyViolations } from './network-check.ts';
import { interval, markdownTable, violationsLine, type Interval } from './seeds-report.ts';
import { VARIANT_LABELS, VARIANTS, type Variant } from './updates-processor.ts';

const CAUSES = ['retry', 'merchant_update', 'account_updater', 'other_card'] as const;
const fmt = (i: Interval, digits = 2) => `${i.mean.toFixed(digits)} [${i.lo.toFixed(digits)}, ${i.hi.toFixed(digits)}]`;
const signed = (i: Interval) => `${i.mean >= 0 ? '+' : ''}${fmt(i)}`;

interface SeedRow {
  recoveredPct: number;
  amountPct: number;
  attempts: number;
  recovered: number;
}

function perSeed(outcomes: readonly OrderOutcome[], variant: Variant, seeds: readonly number[]): SeedRow[] {
  return seeds.map((seed) => {
    const mine = outcomes.filter((o) => o.variant === variant && o.seed === seed);
    const ok = mine.filter((o) => o.approved);
    const total = mine.reduce((s, o) => s + o.amount, 0);
    return {
      recoveredPct: (ok.length / mine.length) * 100, amountPct: (ok.reduce((s, o) => s + o.amount, 0) / total) * 100,
      attempts: mine.reduce((s, o) => s + o.attempts.length, 0), recovered: ok.length,
    };
  });
}

/** The variants' table, the per-cause table and the violations line per variant. */
export function formatCardUpdates(run: UpdatesRun): string {
  const seeds = [...new Set(run.outcomes.map((o) => o.seed))].sort((a, b) => a - b);
  const rows = new Map(VARIANTS.map((v) => [v, perSeed(run.outcomes, v, seeds)]));
  const off = rows.get('off')!;
  const violations = new Map(VARIANTS.map((v) => [v, emptyViolations()]));
  for (const h of run.held) addViolations(violations.get(h.variant)!, checkCard(h.card.brand, h.events));
  const main = markdownTable(
    ['rescued variant', 'recovered orders % [95 % CI]', 'gain over (a), points [95 % CI]', 'recovered amount % [95 % CI]', 'gain over (a), points [95 % CI]', 'attempts / recovery', 'violations'],
    VARIANTS.map((v) => {
      const r = rows.get(v)!;
      const tries = r.reduce((s, x) => s + x.attempts, 0);
      const ok = r.reduce((s, x) => s + x.recovered, 0);
      return [
        VARIANT_LABELS[v], fmt(interval(r.map((x) => x.recoveredPct))), v === 'off' ? '–' : signed(interval(r.map((x, i) => x.recoveredPct - off[i]!.recoveredPct))),
        fmt(interval(r.map((x) => x.amountPct))), v === 'off' ? '–' : signed(interval(r.map((x, i) => x.amountPct - off[i]!.amountPct))),
        (tries / Math.max(1, ok)).toFixed(2), violationsLine(violations.get(v)!),
      ];
    }),
  );
  const causes = markdownTable(
    ['rescued variant', ...CAUSES.map((c) => `${c}: orders, USD`)],
    VARIANTS.map((v) => {
      const ok = run.outcomes.filter((o) => o.variant === v && o.approved);
      return [VARIANT_LABELS[v], ...CAUSES.map((c) => {
        const mine = ok.filter((o) => (o.recoveredBy ?? 'retry') === c);
        return `${mine.length}, ${(mine.reduce((s, o) => s + o.amount, 0) / 100).toFixed(2)}`;
      })];
    }),
  );
  return [
    `Recovered orders and amount per variant, mean and 95 % interval over ${seeds.length} seeds; the gain is paired by seed (same orders, same issuers):\n`, main,
    `\nRecovered per cause (orders.recovered_by), summed over the seeds:\n`, causes,
    `\nMerchant updates sent through attachPaymentMethod: ${run.merchantUpdates.sent} (${run.merchantUpdates.refused} refused: the order had ended before the card came).`,
    `Attempts (approved) per card the payer holds, and the account updater's answers:`,
    ...VARIANTS.map((v) => {
      const t = run.tally.get(v)!;
      return `  ${VARIANT_LABELS[v]}: declined card ${t.original.attempts} (${t.original.approved}), its successor ${t.successor.attempts} (${t.successor.approved}), the other card ${t.other.attempts} (${t.other.approved}); updater answers ${t.updates}`;
    }),
  ].join('\n');
}
