// The fixed retry schedules rescued is compared with, run against the same issuer model and
// payers (a plain loop: a schedule needs no database). Like the naive schedules they stand for,
// they read nothing from the answers: every order is retried on its schedule until it is
// approved or the schedule (or the order's deadline) ends, whatever the decline said.
import { DAY_MS, HOUR_MS } from './calendar.ts';
import { answer, type AttemptLog, type IssuerCtx } from './issuer.ts';
import type { Payer } from './payers.ts';

/** One order's attempts under one strategy, oldest first. */
export interface Trial {
  payer: Payer;
  attempts: readonly AttemptLog[];
}

export interface FixedStrategy {
  name: string;
  /** The attempt times after the decline, in ms, before any deadline is applied. */
  offsetsMs(payer: Payer): number[];
}

export const FIXED_STRATEGIES: readonly FixedStrategy[] = [
  {
    name: 'retry daily until the deadline',
    // Every 24 h at the time of day of the original decline, for as long as the order runs.
    offsetsMs: (payer) => Array.from({ length: Math.ceil((payer.expiryMs - payer.declineAtMs) / DAY_MS) }, (_, i) => (i + 1) * DAY_MS),
  },
  {
    name: '8 tries in 2 weeks',
    // Evenly spread: every 42 h, the 8th try on day 14.
    offsetsMs: () => Array.from({ length: 8 }, (_, i) => (i + 1) * 42 * HOUR_MS),
  },
  {
    name: 'retry once after 24 h',
    offsetsMs: () => [DAY_MS],
  },
];

export function runFixed(ctx: IssuerCtx, strategy: FixedStrategy, payers: readonly Payer[]): Trial[] {
  return payers.map((payer) => {
    const attempts: AttemptLog[] = [];
    for (const offset of strategy.offsetsMs(payer)) {
      const atMs = payer.declineAtMs + offset;
      if (atMs >= payer.expiryMs) break;
      const a = answer(ctx, payer, atMs, attempts);
      attempts.push({ atMs, ...a });
      if (a.approved) break;
    }
    return { payer, attempts };
  });
}
