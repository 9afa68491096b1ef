// rescued's strategy: the REAL engine (createEngine: planner, claims, recorder, sweeps) on a
// fresh PostgreSQL database, driven by a ManualClock against the simulation processor. Every
// order arrives as a SUBMITTED MIT order at its decline time, carrying only what a merchant
// sends (code, brand, amount, the time zone it knows, the deadline). The clock jumps to the
// next due attempt, rounded up to the step (5 minutes by default: one step per due minute
// took 8 minutes for half a month on a loaded machine): an attempt may run up to one step
// after the time its plan says, never before it (so no advised delay is cut short), and never
// after its order's deadline.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { Value } from '@sinclair/typebox/value';
import { ManualClock } from '../../../src/clock.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import { openDatabase, type Db } from '../../../src/db/client.ts';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import { dateOf } from '../../../src/db/queries/raw-rows.ts';
import { orders } from '../../../src/db/schema.ts';
import { createEngine, type EngineConfig } from '../../../src/engine/index.ts';
import { defaultRules, type Rules } from '../../../src/engine/rules.ts';
import { createLogger } from '../../../src/log.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { DAY_MS } from './calendar.ts';
import type { Trial } from './fixed.ts';
import type { IssuerCtx } from './issuer.ts';
import type { Payer } from './payers.ts';
import { cardTokenOf, createSimulationProcessor } from './processor.ts';

export interface EngineRun {
  trials: Trial[];
  /** Clock steps taken and wall-clock seconds. */
  steps: number;
  seconds: number;
}

export const CLAIM_BATCH = 500;
const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;

/** The engine's configuration as the schema's defaults give it, with no real-time rate limit (the clock is simulated). */
export function engineConfig(): EngineConfig {
  return {
    ...(Value.Default(ConfigSchema.properties.engine, {}) as EngineConfig),
    ...(Value.Default(ConfigSchema.properties.processor, {}) as Pick<EngineConfig, 'concurrency' | 'ratePerSecond'>),
    claimBatchSize: CLAIM_BATCH, concurrency: CLAIM_BATCH, ratePerSecond: 1_000_000, sweepCron: '0 0 0 1 1 *',
  } as EngineConfig;
}

/** A database of its own on the server of `baseUrl`, dropped by `drop`. */
export async function scratchDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rescued_sim_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  // A scratch database for a simulation: a commit need not wait for the disk (nothing here
  // must survive a crash), so the run measures the engine's work, not fsync latency.
  await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/**
 * A UUID fixed by the seed and the payer: the planner spreads attempts by a hash of the order
 * id, so random ids would make two runs with one seed differ.
 */
export function orderUuid(seed: number, index: number): string {
  const h = createHash('sha256').update(`rescue-sim:${seed}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The declined rebills as intake would leave them: SUBMITTED, due at their decline time. */
async function insertOrders(db: Db, merchantId: string, seed: number, payers: readonly Payer[]): Promise<void> {
  const rows = payers.map((p) => {
    const orderId = `SIM-${p.index}`;
    const declinedAt = new Date(p.declineAtMs);
    const request = {
      orderId, isMIT: true, isRecurring: true, expiryDateUtc: new Date(p.expiryMs).toISOString(),
      transaction: { responseCode: p.originalCode, responseCodeSource: 'NA', timezoneUtcOffset: p.reportedOffsetHours, amount: p.amount, currency: 'USD', timestampUtc: declinedAt.toISOString() },
      paymentMethod: { cardNumber: cardTokenOf(p), token: true, cardBrand: BRAND_NAMES[p.brand] },
    };
    return {
      id: orderUuid(seed, p.index), merchantId, orderId, idempotencyKey: randomUUID(), kind: 'MIT' as const, status: 'SUBMITTED', amount: p.amount, currency: 'USD',
      cardToken: cardTokenOf(p), cardBrand: BRAND_NAMES[p.brand], expiresAt: new Date(p.expiryMs), declineCode: p.originalCode, declineSource: 'NA',
      request, nextAttemptAt: declinedAt, createdAt: declinedAt, updatedAt: declinedAt,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await db.insert(orders).values(rows.slice(i, i + 1000));
}

export interface RescuedOptions {
  databaseUrl: string;
  stepMs: number;
  /** Network rules and timing for the engine (default: the engine's own defaults). */
  rules?: Rules;
}

export async function runRescued(ctx: IssuerCtx, payers: readonly Payer[], opts: RescuedOptions): Promise<EngineRun> {
  const started = performance.now();
  const scratch = await scratchDatabase(opts.databaseUrl);
  const log = createLogger({ level: 'error' });
  const database = await openDatabase({ url: scratch.url, poolSize: 8, log });
  // Ctrl-C mid-run: the scratch database goes too, not left behind on the server.
  const interrupted = () => void database.close().finally(() => scratch.drop().finally(() => process.exit(130)));
  process.once('SIGINT', interrupted);
  try {
    await database.migrate();
    const { db } = database;
    const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: randomBytes(32).toString('base64') }, 'v1'), mode: 'sandbox' });
    const merchantId = (await merchants.byMid((await merchants.add({ name: 'Rescue simulation' })).mid)).id;
    await insertOrders(db, merchantId, ctx.seed, payers);
    const clock = new ManualClock(Math.min(...payers.map((p) => p.declineAtMs)));
    const processor = createSimulationProcessor(ctx, payers, clock);
    const engine = createEngine({ db, processor, clock, log, config: engineConfig(), testMode: true, ...(opts.rules ? { rules: opts.rules } : {}) });
    const marginMs = (opts.rules ?? defaultRules).timing.expiryMarginMs;
    const steps = await drive(db, engine, clock, { stepMs: opts.stepMs, marginMs }, Math.max(...payers.map((p) => p.expiryMs)));
    await assertFinal(db, processor.logs(), payers.length);
    const logs = processor.logs();
    const trials = payers.map((payer) => ({ payer, attempts: logs.get(payer.index) ?? [] }));
    return { trials, steps, seconds: (performance.now() - started) / 1000 };
  } finally {
    process.off('SIGINT', interrupted);
    await database.close();
    await scratch.drop();
  }
}

/** The clock's step, and the planner's margin before each order's expiry (its deadline). */
export interface Step {
  stepMs: number;
  marginMs: number;
}

/** Runs every due order, then jumps the clock to the next one, until nothing is open. */
export async function drive(db: Db, engine: ReturnType<typeof createEngine>, clock: ManualClock, step: Step, lastExpiryMs: number): Promise<number> {
  let steps = 0;
  let lastSweepMs = -Infinity;
  for (;;) {
    steps++;
    // A claim that did not fill its batch took everything due; anything left (an attempt the
    // card's caps re-planned) is found by the look-up of the next due time below.
    while ((await engine.runOnce()) >= CLAIM_BATCH);
    const nowMs = clock.now().getTime();
    if (nowMs - lastSweepMs >= DAY_MS) {
      await engine.sweepOnce();
      lastSweepMs = nowMs;
    }
    const next = await nextStop(db, step);
    if (next === undefined) break;
    if (nowMs > lastExpiryMs + DAY_MS) throw new Error(`orders still open a day after the last deadline (next at ${new Date(next).toISOString()})`);
    clock.set(Math.max(nowMs + 1, next));
  }
  clock.set(lastExpiryMs + 60_000);
  await engine.runOnce();
  await engine.sweepOnce();
  return steps;
}

/**
 * Where the clock goes next: the next due time rounded up to the step, but never past the last
 * moment of an order due by then (its deadline, expiryDateUtc less the planner's margin, less
 * a second): a last try planned just before the deadline must still be sent.
 */
async function nextStop(db: Db, { stepMs, marginMs }: Step): Promise<number | undefined> {
  const [row] = await selectRows(db, sql`with n as (select min(next_attempt_at) as next from orders where status in ('SUBMITTED', 'PENDING'))
    select n.next, (select min(expires_at) from orders o where o.status in ('SUBMITTED', 'PENDING')
      and o.next_attempt_at <= n.next + ${stepMs} * interval '1 millisecond') as expiry from n`);
  if (!row?.next) return undefined;
  const next = dateOf(row.next).getTime();
  const rounded = Math.ceil(next / stepMs) * stepMs;
  const lastMoment = row.expiry ? dateOf(row.expiry).getTime() - marginMs - 1000 : Infinity;
  return Math.max(next, Math.min(rounded, lastMoment));
}

/** Every order final, and the engine's attempts exactly the calls the processor received. */
async function assertFinal(db: Db, logs: ReadonlyMap<number, readonly unknown[]>, count: number): Promise<void> {
  const [open] = await selectRows(db, sql`select count(*)::int as n from orders where status not in ('APPROVED', 'EXPIRED')`);
  const [recorded] = await selectRows(db, sql`select count(*)::int as n from attempts where status in ('approved', 'declined')`);
  const openN = Number(open!.n);
  const recordedN = Number(recorded!.n);
  const sent = [...logs.values()].reduce((sum, l) => sum + l.length, 0);
  if (openN !== 0) throw new Error(`${openN} of ${count} orders are not final at the end of the run`);
  if (recordedN !== sent) throw new Error(`the engine recorded ${recordedN} attempts, the processor received ${sent}`);
}
