// rescued on the random worlds (world.ts, orders.ts) with engine.learning set, for the
// learned-timing bench: the real engine on a fresh PostgreSQL database, a ManualClock, every
// seed at once with one merchant per seed (so each merchant learns from its own world), as
// engine-seeds.ts runs it; besides the attempts, it answers how many attempts each kind of
// plan reason sent (prior, learned, or the static model's own names with learning off) and
// how many cells the learned table holds at the end.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ManualClock } from '../../../src/clock.ts';
import { openDatabase, type Db } from '../../../src/db/client.ts';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import { orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import type { LearningMode } from '../../../src/engine/learning/source.ts';
import { defaultRules } from '../../../src/engine/rules.ts';
import { createLogger } from '../../../src/log.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import type { Attempts } from './baselines.ts';
import { drive, engineConfig, orderUuid, scratchDatabase } from './engine-run.ts';
import { simOrderRow } from './engine-seeds.ts';
import type { Order, Population } from './orders.ts';
import { createWorldProcessor } from './world-processor.ts';

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

const idOf = (pop: Population, order: Order) => orderUuid(pop.world.seed, order.index);
const binOf = (order: Order) => BINS[order.card.brand][order.card.index % BINS[order.card.brand].length]!;

async function insertOrders(db: Db, merchantId: string, pop: Population): Promise<void> {
  const rows = pop.orders.map((o) => simOrderRow(pop, o, merchantId, binOf(o)));
  for (let i = 0; i < rows.length; i += 1000) await db.insert(orders).values(rows.slice(i, i + 1000));
}

export async function runLearningSeeds(pops: readonly Population[], opts: { databaseUrl: string; stepMs: number; learning: LearningMode }): Promise<LearningSeedsRun> {
  const started = performance.now();
  const scratch = await scratchDatabase(opts.databaseUrl);
  const log = createLogger({ level: 'error' });
  const database = await openDatabase({ url: scratch.url, poolSize: 8, log });
  const interrupted = () => void database.close().finally(() => scratch.drop().finally(() => process.exit(130)));
  process.once('SIGINT', interrupted);
  try {
    await database.migrate();
    const { db } = database;
    const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: randomBytes(32).toString('base64') }, 'v1'), mode: 'sandbox' });
    for (const pop of pops) {
      const merchantId = (await merchants.byMid((await merchants.add({ name: `Learning simulation, seed ${pop.world.seed}` })).mid)).id;
      await insertOrders(db, merchantId, pop);
    }
    const all = pops.flatMap((p) => p.orders);
    const clock = new ManualClock(Math.min(...all.map((o) => o.handoverAtMs)));
    const processor = createWorldProcessor(pops, idOf, clock);
    const engine = createEngine({ db, processor, clock, log, config: { ...engineConfig(), learning: opts.learning }, testMode: true });
    await drive(db, engine, clock, { stepMs: opts.stepMs, marginMs: defaultRules.timing.expiryMarginMs }, Math.max(...all.map((o) => o.expiryMs)));
    const reasons: Record<string, number> = {};
    for (const r of await selectRows(db, sql`select split_part(coalesce(plan_reason, '-'), ':', 1) as kind, count(*)::int as n from attempts group by 1 order by 2 desc`)) {
      reasons[r.kind as string] = Number(r.n);
    }
    const [cells] = await selectRows(db, sql`select count(*)::int as n from learned_timing`);
    return { attempts: processor.attempts(), reasons, learnedCells: Number(cells?.n ?? 0), seconds: (performance.now() - started) / 1000 };
  } finally {
    process.off('SIGINT', interrupted);
    await database.close();
    await scratch.drop();
  }
}
