// The merchant model (DESIGN.md §3): the planner's hour-of-day and day-of-month weights,
// learnt from the merchant's /transmit approvals and smoothed towards a global prior, so a
// merchant with few records gets the prior and one with many gets its own pattern.
//
//   weight[b] = ((approvals[b] + k · prior[b]) / (A + k)) × buckets
//
// with A the merchant's approvals in that dimension, prior[b] the share of bucket b over
// every merchant (itself smoothed towards uniform), and k = PRIOR_STRENGTH pseudo-approvals.
// A weight of 1 is "average"; the planner reads only relative sizes.
import type { Db } from '../db/client.ts';
import { globalStats, merchantStats, type StatRow } from '../db/queries/model-stats.ts';
import type { MerchantModel } from './plan-types.ts';

/** How many approvals the prior counts for: below this, the prior dominates. */
export const PRIOR_STRENGTH = 50;

const SIZES = { hour: 24, day: 31 } as const;
type Dimension = keyof typeof SIZES;

/** Approvals per bucket: index 0–23 for hours, 0–30 for days 1–31. */
function counts(rows: readonly StatRow[], dim: Dimension): number[] {
  const out = new Array<number>(SIZES[dim]).fill(0);
  for (const r of rows) {
    if (r.dimension !== dim) continue;
    const n = Number(r.bucket);
    const i = dim === 'hour' ? n : n - 1;
    if (Number.isInteger(i) && i >= 0 && i < out.length) out[i]! += Math.max(0, r.approvals);
  }
  return out;
}

function shares(c: readonly number[], prior: readonly number[] | undefined, strength: number): number[] {
  const total = c.reduce((a, b) => a + b, 0);
  const uniform = 1 / c.length;
  return c.map((x, i) => (x + strength * (prior?.[i] ?? uniform)) / (total + strength));
}

function weights(own: readonly StatRow[], global: readonly StatRow[], dim: Dimension, strength: number): number[] {
  const prior = shares(counts(global, dim), undefined, strength);
  return shares(counts(own, dim), prior, strength).map((s) => s * SIZES[dim]);
}

/** Pure: the model from a merchant's counters and the counters over all merchants. */
export function buildMerchantModel(own: readonly StatRow[], global: readonly StatRow[] = [], strength = PRIOR_STRENGTH): MerchantModel {
  return { hourWeights: weights(own, global, 'hour', strength), dayOfMonthWeights: weights(own, global, 'day', strength) };
}

/** The model of one merchant as stored now (two small reads). */
export async function loadMerchantModel(db: Db, merchantId: string, strength = PRIOR_STRENGTH): Promise<MerchantModel> {
  const [own, global] = await Promise.all([merchantStats(db, merchantId), globalStats(db)]);
  return buildMerchantModel(own, global, strength);
}
