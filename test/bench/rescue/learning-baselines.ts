// Compliant baselines for the learned-timing bench: schedules a careful merchant could run
// without rescued, that read the decline codes and keep the networks' rules. Written from
// shared/reference/card-networks.md, sharing nothing with the planner: no attempt after a
// hard decline (Visa category 1, lost, stolen, closed, fraud, expired) or after Mastercard
// MAC 01/03/21; none before a MAC 24–30 delay runs out; at most 15 reattempts per card in 30
// days (Visa's published cap; Amex and others held to it too), 35 attempts and 20 declines in
// 24 hours for Mastercard.
import { DAY_MS, HOUR_MS } from './calendar.ts';
import type { FixedStrategy, Trial } from './fixed.ts';
import { answer, type AttemptLog, type IssuerCtx } from './issuer.ts';
import type { Payer } from './payers.ts';

const HARD = new Set(['04', '07', '12', '14', '15', '41', '43', '46', '54', '57', '59', '62', 'R0', 'R1', 'R3']);
const STOP_ADVICE = new Set(['01', '03', '21']);
const ADVICE_DELAY_MS: Readonly<Record<string, number>> = {
  '24': HOUR_MS, '25': 24 * HOUR_MS, '26': 2 * DAY_MS, '27': 4 * DAY_MS, '28': 6 * DAY_MS, '29': 8 * DAY_MS, '30': 10 * DAY_MS,
};
const MINUTE_MS = 60_000;

export const COMPLIANT_BASELINES: readonly FixedStrategy[] = [
  {
    name: 'daily retry, code-aware, within the caps',
    offsetsMs: (payer) => Array.from({ length: Math.ceil((payer.expiryMs - payer.declineAtMs) / DAY_MS) }, (_, i) => (i + 1) * DAY_MS),
  },
  {
    name: '8 tries in 2 weeks, code-aware, within the caps',
    offsetsMs: () => Array.from({ length: 8 }, (_, i) => (i + 1) * 42 * HOUR_MS),
  },
];

function stops(a: { code: string; advice?: string; approved: boolean }): boolean {
  return a.approved || HARD.has(a.code) || (a.advice !== undefined && STOP_ADVICE.has(a.advice));
}

/** The earliest moment at or after `atMs` that keeps the card inside every cap and advised delay. */
function allowedFrom(payer: Payer, atMs: number, log: readonly AttemptLog[]): number {
  let t = atMs;
  const last = log.at(-1);
  const delay = last?.advice ? ADVICE_DELAY_MS[last.advice] : undefined;
  if (last && delay !== undefined) t = Math.max(t, last.atMs + delay + MINUTE_MS);
  const cap = payer.brand === 'mastercard' ? 35 - 1 : 15; // Mastercard counts the original too
  const inWindow = log.filter((a) => a.atMs > t - 30 * DAY_MS);
  if (inWindow.length >= cap) t = Math.max(t, inWindow[inWindow.length - cap]!.atMs + 30 * DAY_MS + MINUTE_MS);
  return t;
}

export function runCompliant(ctx: IssuerCtx, strategy: FixedStrategy, payers: readonly Payer[]): Trial[] {
  return payers.map((payer) => {
    const attempts: AttemptLog[] = [];
    // The order carries the original decline's code alone (population A's merchants send no MAC).
    if (HARD.has(payer.originalCode)) return { payer, attempts };
    let floorMs = -Infinity;
    for (const offset of strategy.offsetsMs(payer)) {
      const atMs = allowedFrom(payer, Math.max(payer.declineAtMs + offset, floorMs), attempts);
      if (atMs >= payer.expiryMs - 30 * MINUTE_MS) break;
      const a = answer(ctx, payer, atMs, attempts);
      attempts.push({ atMs, ...a });
      floorMs = atMs + MINUTE_MS;
      if (stops(a)) break;
    }
    return { payer, attempts };
  });
}
