// rescued on the random worlds: the REAL engine (createEngine: planner, claims, recorder,
// sweeps) with its default configuration on a fresh PostgreSQL database, driven by a
// ManualClock, for every seed at once: one merchant per seed, so no seed's orders meet another's
// cards or merchant figures, and the clock's steps (the run's main cost) are shared. Every order
// arrives as a SUBMITTED merchant-initiated rebill due at its hand-over, carrying only what a
// merchant sends: the original code and its Mastercard advice (transaction.merchantAdviceCode),
// the merchant's own retries (transaction.priorAttempts), brand, amount, the time zone it knows,
// the deadline. The planner never sees the world.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ManualClock } from '../../../src/clock.ts';
import type { Db } from '../../../src/db/client.ts';
import { declineFacts } from '../../../src/db/prior-attempts.ts';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import { orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import type { LearningMode } from '../../../src/engine/learning/source.ts';
import { defaultRules, type Rules } from '../../../src/engine/rules.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import type { Attempts } from './baselines.ts';
import { drive, engineConfig, orderUuid, withScratchDatabase } from './engine-run.ts';
import type { Order, Population } from './orders.ts';
import { cardTokenOf, createWorldProcessor, type WorldProcessor } from './world-processor.ts';
import { transmitFeed } from './merchant-transmits.ts';

const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

export interface SeedsRun {
  /** Attempts per population, in the order given. */
  attempts: Attempts[];
  steps: number;
  seconds: number;
}

export interface SeedsOptions {
  databaseUrl: string;
  stepMs: number;
  rules?: Rules;
  /** engine.learning (default: the configuration's default). With it on, the seeds' merchants share the global learned table. */
  learning?: LearningMode;
  /** engine.maxAttemptsPerOrder for a what-if run (default: the configuration's default). */
  maxAttemptsPerOrder?: number;
}

const idOf = (pop: Population, order: Order) => orderUuid(pop.world.seed, order.index);

/** The order as a merchant's request carries it (the interface's fields, issue 26's among them). */
export function requestOf(pop: Population, order: Order): Record<string, unknown> {
  return {
    orderId: `SIM-${order.index}`, isMIT: true, isRecurring: true, expiryDateUtc: iso(order.expiryMs),
    transaction: {
      responseCode: order.originalCode, responseCodeSource: 'NA', timezoneUtcOffset: order.card.reportedOffsetHours, amount: order.amount, currency: 'USD',
      timestampUtc: iso(order.declineAtMs), ...(order.originalAdvice ? { merchantAdviceCode: order.originalAdvice } : {}),
      ...(order.prior.length > 0 ? { priorAttempts: order.prior.map((p) => ({ timestampUtc: iso(p.atMs), responseCode: p.code, ...(p.advice ? { merchantAdviceCode: p.advice } : {}) })) } : {}),
    },
    paymentMethod: { cardNumber: cardTokenOf(pop, order), token: true, cardBrand: BRAND_NAMES[order.card.brand] },
  };
}

/** The request's transaction in the shape intake validated it to (advice codes two digits). */
function transactionOf(pop: Population, o: Order): Parameters<typeof declineFacts>[0] {
  const t = requestOf(pop, o).transaction as { timestampUtc: string; merchantAdviceCode?: string; priorAttempts?: { timestampUtc: string; responseCode: string; merchantAdviceCode?: string }[] };
  return t;
}

/**
 * An order row as intake writes it from the merchant's request, with the columns the card's
 * windows count (the original decline's time and advice, the merchant's earlier tries);
 * `bin` adds the card's first digits (the learned timing's issuer).
 */
export function simOrderRow(pop: Population, o: Order, merchantId: string, bin?: string) {
  const request = requestOf(pop, o) as { paymentMethod: Record<string, unknown> };
  return {
    id: idOf(pop, o), merchantId, orderId: `SIM-${o.index}`, idempotencyKey: randomUUID(), kind: 'MIT' as const, status: 'SUBMITTED', amount: o.amount, currency: 'USD',
    cardToken: cardTokenOf(pop, o), cardBrand: BRAND_NAMES[o.card.brand], expiresAt: new Date(o.expiryMs), declineCode: o.originalCode, declineSource: 'NA',
    ...(bin ? { cardBin: bin, request: { ...request, paymentMethod: { ...request.paymentMethod, cardBinNumber: bin } } } : { request }),
    nextAttemptAt: new Date(o.handoverAtMs), createdAt: new Date(o.handoverAtMs), updatedAt: new Date(o.handoverAtMs),
    ...declineFacts(transactionOf(pop, o), new Date(o.handoverAtMs)),
  };
}

export interface WorldsOptions extends SeedsOptions {
  /** The merchants' name, before ", seed N". */
  name: string;
  /** The BIN each order sends (the learned timing's issuer); none: no BIN. */
  binOf?: (o: Order) => string;
}

/** The engine's run, for the reading that ends it before the scratch database goes. */
export interface WorldsRun {
  db: Db;
  processor: WorldProcessor;
  steps: number;
  /** Orders in all the worlds. */
  count: number;
}

/**
 * Every world's orders (one merchant per seed) run by the real engine on a scratch database,
 * each to its deadline on a manual clock; `read` takes the figures before the database is
 * dropped (also on Ctrl-C).
 */
export async function runWorlds<T>(pops: readonly Population[], opts: WorldsOptions, read: (run: WorldsRun) => Promise<T>): Promise<T & { seconds: number }> {
  const started = performance.now();
  return withScratchDatabase(opts.databaseUrl, undefined, async (db, log) => {
    const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: randomBytes(32).toString('base64') }, 'v1'), mode: 'sandbox' });
    const seeded: { pop: Population; merchantId: string }[] = [];
    for (const pop of pops) {
      const merchantId = (await merchants.byMid((await merchants.add({ name: `${opts.name}, seed ${pop.world.seed}` })).mid)).id;
      const rows = pop.orders.map((o) => simOrderRow(pop, o, merchantId, opts.binOf?.(o)));
      for (let i = 0; i < rows.length; i += 1000) await db.insert(orders).values(rows.slice(i, i + 1000));
      seeded.push({ pop, merchantId });
    }
    const all = pops.flatMap((p) => p.orders);
    const clock = new ManualClock(Math.min(...all.map((o) => o.handoverAtMs)));
    const processor = createWorldProcessor(pops, idOf, clock);
    const engine = createEngine({ db, processor, clock, log, config: { ...engineConfig(), ...(opts.learning ? { learning: opts.learning } : {}), ...(opts.maxAttemptsPerOrder ? { maxAttemptsPerOrder: opts.maxAttemptsPerOrder } : {}) }, testMode: true, ...(opts.rules ? { rules: opts.rules } : {}) });
    const marginMs = (opts.rules ?? defaultRules).timing.expiryMarginMs;
    const steps = await drive(db, engine, clock, { stepMs: opts.stepMs, marginMs }, Math.max(...all.map((o) => o.expiryMs)), transmitFeed(db, seeded));
    const figures = await read({ db, processor, steps, count: all.length });
    return { ...figures, seconds: (performance.now() - started) / 1000 };
  });
}

export async function runRescuedSeeds(pops: readonly Population[], opts: SeedsOptions): Promise<SeedsRun> {
  return runWorlds(pops, { ...opts, name: 'Rescue simulation' }, async ({ db, processor, steps, count }) => {
    await assertFinal(db, processor.sent(), count);
    return { attempts: processor.attempts(), steps };
  });
}

/** Every order final, and the engine's attempts exactly the calls the processor received. */
async function assertFinal(db: Db, sent: number, count: number): Promise<void> {
  const [open] = await selectRows(db, sql`select count(*)::int as n from orders where status not in ('APPROVED', 'EXPIRED')`);
  const [recorded] = await selectRows(db, sql`select count(*)::int as n from attempts where status in ('approved', 'declined')`);
  if (Number(open!.n) !== 0) throw new Error(`${Number(open!.n)} of ${count} orders are not final at the end of the run`);
  if (Number(recorded!.n) !== sent) throw new Error(`the engine recorded ${Number(recorded!.n)} attempts, the processor received ${sent}`);
}
