// rescued on the random worlds (world.ts, orders.ts) with engine.learning set, for the
// learned-timing bench: the real engine on a fresh PostgreSQL database, a ManualClock, every
// seed at once with one merchant per seed (so each merchant learns from its own world), as
// engine-seeds.ts runs it; besides the attempts, it answers how many attempts each kind of
// plan reason sent (prior, learned, or the static model's own names with learning off) and
// how many cells the learned table holds at the end.
import { sql } from 'drizzle-orm';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import type { LearningMode } from '../../../src/engine/learning/source.ts';
import type { Attempts } from './baselines.ts';
import { runWorlds } from './engine-seeds.ts';
import type { Order, Population } from './orders.ts';

// The worlds have no issuers apart from the cards' own behaviour; the merchant still sends a
// BIN, a few per brand, so the table's issuer dimension is exercised as in production.
const BINS = { visa: ['411111', '426684', '453201'], mastercard: ['510510', '545454'], amex: ['378282'] } as const;

export interface LearningSeedsRun {
  attempts: Attempts[];
  /** Attempts by the first word of their plan reason. */
  reasons: Record<string, number>;
  learnedCells: number;
  seconds: number;
}

const binOf = (order: Order) => BINS[order.card.brand][order.card.index % BINS[order.card.brand].length]!;

export async function runLearningSeeds(pops: readonly Population[], opts: { databaseUrl: string; stepMs: number; learning: LearningMode; maxAttemptsPerOrder?: number }): Promise<LearningSeedsRun> {
  return runWorlds(pops, { ...opts, name: 'Learning simulation', binOf }, async ({ db, processor }) => {
    const reasons: Record<string, number> = {};
    for (const r of await selectRows(db, sql`select split_part(coalesce(plan_reason, '-'), ':', 1) as kind, count(*)::int as n from attempts group by 1 order by 2 desc`)) {
      reasons[r.kind as string] = Number(r.n);
    }
    const [cells] = await selectRows(db, sql`select count(*)::int as n from learned_timing`);
    return { attempts: processor.attempts(), reasons, learnedCells: Number(cells?.n ?? 0) };
  });
}
