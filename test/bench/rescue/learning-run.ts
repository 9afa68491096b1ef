// rescued through the real engine for the learned-timing bench, with engine.learning set:
// the same run as engine-run.ts (a fresh PostgreSQL database, a ManualClock, the simulation
// processor), over the 91 days of weekly cohorts, and the plan reasons it gave counted by
// kind (prior / learned) so the output shows how much the evidence decided.
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
import { defaultRules } from '../../../src/engine/rules.ts';
import { createLogger } from '../../../src/log.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { DAY_MS } from './calendar.ts';
import type { Trial } from './fixed.ts';
import type { IssuerCtx } from './issuer.ts';
import type { Payer } from './payers.ts';
import { cardTokenOf, createSimulationProcessor } from './processor.ts';

export type LearningMode = 'on' | 'frozen' | 'off';

export interface LearningRun {
  trials: Trial[];
  /** Attempts by the kind of reason their plan gave: prior, learned, or the static model's own name (learning off). */
  reasons: Record<string, number>;
  learnedCells: number;
  seconds: number;
}

const CLAIM_BATCH = 500;
const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;
// A BIN per brand and issuer group: the table keys issuers by it.
const BINS = { visa: ['411111', '426684', '453201'], mastercard: ['510510', '545454'], amex: ['378282'] } as const;

function engineConfig(learning: LearningMode): EngineConfig {
  return {
    ...(Value.Default(ConfigSchema.properties.engine, {}) as EngineConfig),
    ...(Value.Default(ConfigSchema.properties.processor, {}) as Pick<EngineConfig, 'concurrency' | 'ratePerSecond'>),
    claimBatchSize: CLAIM_BATCH, concurrency: CLAIM_BATCH, ratePerSecond: 1_000_000, sweepCron: '0 0 0 1 1 *', learning,
  } as EngineConfig;
}

function orderUuid(seed: number, index: number): string {
  const h = createHash('sha256').update(`rescue-sim:${seed}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function scratchDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rescued_learn_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
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

async function insertOrders(db: Db, merchantId: string, seed: number, payers: readonly Payer[]): Promise<void> {
  const rows = payers.map((p) => {
    const orderId = `SIM-${p.index}`;
    const declinedAt = new Date(p.declineAtMs);
    const bins = BINS[p.brand];
    const bin = bins[p.index % bins.length]!;
    const request = {
      orderId, isMIT: true, isRecurring: true, expiryDateUtc: new Date(p.expiryMs).toISOString(),
      transaction: { responseCode: p.originalCode, responseCodeSource: 'NA', timezoneUtcOffset: p.reportedOffsetHours, amount: p.amount, currency: 'USD', timestampUtc: declinedAt.toISOString() },
      paymentMethod: { cardNumber: cardTokenOf(p), token: true, cardBrand: BRAND_NAMES[p.brand], cardBinNumber: bin },
    };
    return {
      id: orderUuid(seed, p.index), merchantId, orderId, idempotencyKey: randomUUID(), kind: 'MIT' as const, status: 'SUBMITTED', amount: p.amount, currency: 'USD',
      cardToken: cardTokenOf(p), cardBrand: BRAND_NAMES[p.brand], cardBin: bin, expiresAt: new Date(p.expiryMs), declineCode: p.originalCode, declineSource: 'NA',
      request, nextAttemptAt: declinedAt, createdAt: declinedAt, updatedAt: declinedAt,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await db.insert(orders).values(rows.slice(i, i + 1000));
}

export async function runWithLearning(ctx: IssuerCtx, payers: readonly Payer[], opts: { databaseUrl: string; stepMs: number; learning: LearningMode }): Promise<LearningRun> {
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
    const merchantId = (await merchants.byMid((await merchants.add({ name: 'Learning simulation' })).mid)).id;
    await insertOrders(db, merchantId, ctx.seed, payers);
    const clock = new ManualClock(Math.min(...payers.map((p) => p.declineAtMs)));
    const processor = createSimulationProcessor(ctx, payers, clock);
    const engine = createEngine({ db, processor, clock, log, config: engineConfig(opts.learning), testMode: true });
    await drive(db, engine, clock, opts.stepMs, defaultRules.timing.expiryMarginMs, Math.max(...payers.map((p) => p.expiryMs)));
    const logs = processor.logs();
    const trials = payers.map((payer) => ({ payer, attempts: logs.get(payer.index) ?? [] }));
    const reasons: Record<string, number> = {};
    for (const r of await selectRows(db, sql`select split_part(coalesce(plan_reason, '-'), ':', 1) as kind, count(*)::int as n from attempts group by 1`)) {
      reasons[r.kind as string] = Number(r.n);
    }
    const [cells] = await selectRows(db, sql`select count(*)::int as n from learned_timing`);
    return { trials, reasons, learnedCells: Number(cells?.n ?? 0), seconds: (performance.now() - started) / 1000 };
  } finally {
    process.off('SIGINT', interrupted);
    await database.close();
    await scratch.drop();
  }
}

async function drive(db: Db, engine: ReturnType<typeof createEngine>, clock: ManualClock, stepMs: number, marginMs: number, lastExpiryMs: number): Promise<void> {
  let lastSweepMs = -Infinity;
  for (;;) {
    while ((await engine.runOnce()) >= CLAIM_BATCH);
    const nowMs = clock.now().getTime();
    if (nowMs - lastSweepMs >= DAY_MS) {
      await engine.sweepOnce();
      lastSweepMs = nowMs;
    }
    const [row] = await selectRows(db, sql`with n as (select min(next_attempt_at) as next from orders where status in ('SUBMITTED', 'PENDING'))
      select n.next, (select min(expires_at) from orders o where o.status in ('SUBMITTED', 'PENDING')
        and o.next_attempt_at <= n.next + ${stepMs} * interval '1 millisecond') as expiry from n`);
    if (!row?.next) break;
    if (nowMs > lastExpiryMs + DAY_MS) throw new Error('orders still open a day after the last deadline');
    const next = dateOf(row.next).getTime();
    const lastMoment = row.expiry ? dateOf(row.expiry).getTime() - marginMs - 1000 : Infinity;
    clock.set(Math.max(nowMs + 1, Math.max(next, Math.min(Math.ceil(next / stepMs) * stepMs, lastMoment))));
  }
  clock.set(lastExpiryMs + 60_000);
  await engine.runOnce();
  await engine.sweepOnce();
}
