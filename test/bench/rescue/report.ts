// Figures per strategy from its trials, the table printed on stdout, and the verdict: rescued
// must recover more orders and more of the amount than every fixed schedule, with fewer
// attempts per recovered order, and break no network rule.
import { DAY_MS } from './calendar.ts';
import { checkTrials, RULES, type Rule, type Violations } from './checker.ts';
import type { Trial } from './fixed.ts';
import { markdownTable } from './seeds-report.ts';

// Kept here too: other benches read their tables from this module.
export { markdownTable };

export interface StrategyResult {
  name: string;
  orders: number;
  recovered: number;
  recoveredPct: number;
  amountPct: number;
  attempts: number;
  declined: number;
  attemptsPerRecovery: number;
  violations: Violations;
  /** Recovered orders % by days since the original decline: curve[d] counts approvals at most d days after it. */
  curve: number[];
}

export function summarize(name: string, trials: readonly Trial[], windowDays: number): StrategyResult {
  let recovered = 0;
  let amount = 0;
  let recoveredAmount = 0;
  let attempts = 0;
  let declined = 0;
  const perDay = new Array<number>(windowDays + 1).fill(0);
  for (const t of trials) {
    amount += t.payer.amount;
    attempts += t.attempts.length;
    declined += t.attempts.filter((a) => !a.approved).length;
    const ok = t.attempts.find((a) => a.approved);
    if (!ok) continue;
    recovered++;
    recoveredAmount += t.payer.amount;
    perDay[Math.min(windowDays, Math.ceil((ok.atMs - t.payer.declineAtMs) / DAY_MS))]!++;
  }
  const n = trials.length;
  let sum = 0;
  const curve = perDay.map((k) => ((sum += k) / n) * 100);
  return {
    name, orders: n, recovered, recoveredPct: (recovered / n) * 100, amountPct: (recoveredAmount / amount) * 100,
    attempts, declined, attemptsPerRecovery: recovered === 0 ? Infinity : attempts / recovered, violations: checkTrials(trials), curve,
  };
}

const RULE_LABELS: Record<Rule, string> = {
  visaCategory1Retried: 'V cat1',
  visaOver15In30Days: 'V >15/30d',
  mastercardMac0321Retried: 'MC 03/21',
  mastercardMacDelayBroken: 'MC 24-30',
  mastercardOver35In30Days: 'MC >35/30d',
  mastercardOver20DeclinesIn24h: 'MC >20 dec/24h',
};

export function formatTable(results: readonly StrategyResult[]): string {
  const head = ['strategy', 'recovered orders', 'recovered amount', 'attempts / recovery', 'attempts', 'declined attempts', 'violations', ...RULES.map((r) => RULE_LABELS[r])];
  const rows = results.map((r) => [
    r.name, `${r.recoveredPct.toFixed(2)} %`, `${r.amountPct.toFixed(2)} %`, r.attemptsPerRecovery.toFixed(2), String(r.attempts), String(r.declined),
    String(r.violations.attempts), ...RULES.map((rule) => String(r.violations.byRule[rule])),
  ]);
  return markdownTable(head, rows);
}

/** Why rescued does not meet the goal against these results (empty: it does). */
export function shortfalls(rescued: StrategyResult, fixed: readonly StrategyResult[]): string[] {
  const out: string[] = [];
  if (rescued.violations.attempts > 0) out.push(`rescued broke network rules on ${rescued.violations.attempts} attempts`);
  for (const f of fixed) {
    if (rescued.recoveredPct <= f.recoveredPct) out.push(`recovers ${rescued.recoveredPct.toFixed(2)} % of orders, not more than "${f.name}" (${f.recoveredPct.toFixed(2)} %)`);
    if (rescued.amountPct <= f.amountPct) out.push(`recovers ${rescued.amountPct.toFixed(2)} % of the amount, not more than "${f.name}" (${f.amountPct.toFixed(2)} %)`);
    if (rescued.attemptsPerRecovery >= f.attemptsPerRecovery) out.push(`needs ${rescued.attemptsPerRecovery.toFixed(2)} attempts per recovery, not fewer than "${f.name}" (${f.attemptsPerRecovery.toFixed(2)})`);
  }
  return out;
}

/** Recovered orders % per original decline reason and strategy: where each strategy wins or loses. */
export function formatReasonTable(runs: ReadonlyArray<{ name: string; trials: readonly Trial[] }>): string {
  const reasons = [...new Set(runs[0]?.trials.map((t) => t.payer.reason) ?? [])].sort();
  const rows = reasons.map((reason) => {
    const cells = runs.map((run) => {
      const of = run.trials.filter((t) => t.payer.reason === reason);
      const ok = of.filter((t) => t.attempts.some((a) => a.approved)).length;
      const tries = of.reduce((sum, t) => sum + t.attempts.length, 0);
      return `${((ok / of.length) * 100).toFixed(1)} % (${(tries / of.length).toFixed(1)})`;
    });
    const n = runs[0]!.trials.filter((t) => t.payer.reason === reason).length;
    return [reason, String(n), ...cells];
  });
  return markdownTable(['original decline', 'orders', ...runs.map((r) => r.name)], rows);
}
