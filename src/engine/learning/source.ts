// The learned table for the planner, and the outcomes the recorder adds to it. The table is
// read at most once per merchant every few minutes (the sums over every merchant once for
// all of them): it moves slowly, and reading it per attempt would add a statement per plan.
// engine.learning: 'on' reads and adds, 'frozen' reads only, 'off' does neither (the static
// model alone, with its plain reasons).
import type { Clock } from '../../clock.ts';
import type { DbOrTx as Tx } from '../../db/client.ts';
import { learnedSums, type OutcomeRow } from '../../db/queries/learned-timing.ts';
import type { WorkOrder } from '../../db/queries/claim-orders.ts';
import { normaliseBrand } from '../../declines/brands.ts';
import { utcOffsetMs } from '../../calendar.ts';
import { cellOf } from './cell.ts';
import { buildCounts, type LearnedCounts, type LearnedTable } from './table.ts';

export type LearningMode = 'on' | 'frozen' | 'off';

export interface LearnedSource {
  mode: LearningMode;
  /** The table for one merchant's plans; null when learning is off. */
  table(db: Tx, merchantId: string): Promise<LearnedTable | null>;
}

export function cachedLearnedTables(clock: Clock, mode: LearningMode, ttlMs = 10 * 60_000): LearnedSource {
  const own = new Map<string, { counts: LearnedCounts; at: number }>();
  let global: { counts: LearnedCounts; at: number } | undefined;
  const fresh = (hit: { at: number } | undefined, now: number) => hit !== undefined && now - hit.at < ttlMs && now >= hit.at;
  return {
    mode,
    async table(db, merchantId) {
      if (mode === 'off') return null;
      const now = clock.now().getTime();
      // Through the caller's handle: inside a transaction on PGlite a read on the pool would wait for it.
      if (!global || !fresh(global, now)) global = { counts: buildCounts(await learnedSums(db, null)), at: now };
      const all = global.counts;
      let hit = own.get(merchantId);
      if (!fresh(hit, now)) {
        hit = { counts: buildCounts(await learnedSums(db, merchantId)), at: now };
        own.set(merchantId, hit);
      }
      return { merchant: hit!.counts, global: all };
    },
  };
}

interface RequestView {
  transaction?: { timezoneUtcOffset?: number | null };
}

/** The BIN the table keys an order's issuer by: the first six digits, '' when unknown. */
export function binOf(order: Pick<WorkOrder, 'cardBin'>): string {
  const digits = (order.cardBin ?? '').replace(/\D/g, '');
  return digits.length >= 6 ? digits.slice(0, 6) : '';
}

/** The cell an attempt of `order` made at `at` adds to, with its outcome. */
export function outcomeOf(order: WorkOrder, family: string, at: Date, approved: boolean): OutcomeRow {
  const offset = utcOffsetMs((order.request as RequestView | null)?.transaction?.timezoneUtcOffset ?? null);
  return {
    merchantId: order.merchantId, family, brand: normaliseBrand(order.cardBrand), bin: binOf(order),
    ...cellOf(at.getTime(), offset), attempts: 1, approvals: approved ? 1 : 0,
  };
}
