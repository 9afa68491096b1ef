// Driving the REAL engine on a simulated clock: its configuration (the schema's defaults, no
// real-time rate limit), a scratch PostgreSQL database of its own, stable order ids, and the
// loop that runs every due order and jumps the clock to the next one. The clock jumps to the
// next due attempt, rounded up to the step: an attempt may run up to one step after the time
// its plan says, never before it (so no advised delay is cut short), and never after its
// order's deadline. engine-seeds.ts runs rescued on the random worlds with it.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ManualClock } from '../../../src/clock.ts';
import { openDatabase, type Db } from '../../../src/db/client.ts';
import { createLogger, type Logger } from '../../../src/log.ts';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import { dateOf } from '../../../src/db/queries/raw-rows.ts';
import type { createEngine, EngineConfig } from '../../../src/engine/index.ts';
import { DAY_MS } from './calendar.ts';

export const CLAIM_BATCH = 500;

/** The engine's configuration as the schema's defaults give it, with no real-time rate limit (the clock is simulated). */
export function engineConfig(): EngineConfig {
  return {
    ...(Value.Default(ConfigSchema.properties.engine, {}) as EngineConfig),
    ...(Value.Default(ConfigSchema.properties.processor, {}) as Pick<EngineConfig, 'concurrency' | 'ratePerSecond'>),
    claimBatchSize: CLAIM_BATCH, concurrency: CLAIM_BATCH, ratePerSecond: 1_000_000, sweepCron: '0 0 0 1 1 *',
  } as EngineConfig;
}

/** A database of its own on the server of `baseUrl` (named `<prefix>_<random>`), dropped by `drop`. */
export async function scratchDatabase(baseUrl: string, prefix = 'rescued_sim'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
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
 * Runs `fn` on a migrated scratch database of its own on the server of `baseUrl` (see
 * scratchDatabase), with an error-level logger; the database is closed and dropped after it,
 * also on Ctrl-C.
 */
export async function withScratchDatabase<T>(baseUrl: string, prefix: string | undefined, fn: (db: Db, log: Logger) => Promise<T>): Promise<T> {
  const scratch = await scratchDatabase(baseUrl, prefix);
  const log = createLogger({ level: 'error' });
  const database = await openDatabase({ url: scratch.url, poolSize: 8, log });
  const interrupted = () => void database.close().finally(() => scratch.drop().finally(() => process.exit(130)));
  process.once('SIGINT', interrupted);
  try {
    await database.migrate();
    return await fn(database.db, log);
  } finally {
    process.off('SIGINT', interrupted);
    await database.close();
    await scratch.drop();
  }
}

/**
 * A UUID fixed by the seed and the payer: the planner spreads attempts by a hash of the order
 * id, so random ids would make two runs with one seed differ.
 */
export function orderUuid(seed: number, index: number): string {
  const h = createHash('sha256').update(`rescue-sim:${seed}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The clock's step, and the planner's margin before each order's expiry (its deadline). */
export interface Step {
  stepMs: number;
  marginMs: number;
}

/**
 * What happens to the orders besides the engine's attempts (the merchant sending an updated
 * card): `run` acts on what is due before the engine claims, `observe` reads what the engine
 * just did, `next` says when something is due next.
 */
export interface Outside {
  run(nowMs: number): Promise<void>;
  observe(nowMs: number): Promise<void>;
  next(): number | undefined;
}

/** Runs every due order, then jumps the clock to the next one, until nothing is open. */
export async function drive(db: Db, engine: ReturnType<typeof createEngine>, clock: ManualClock, step: Step, lastExpiryMs: number, outside?: Outside): Promise<number> {
  let steps = 0;
  let lastSweepMs = -Infinity;
  for (;;) {
    steps++;
    await outside?.run(clock.now().getTime());
    // A claim that did not fill its batch took everything due; anything left (an attempt the
    // card's caps re-planned) is found by the look-up of the next due time below.
    while ((await engine.runOnce()) >= CLAIM_BATCH);
    const nowMs = clock.now().getTime();
    await outside?.observe(nowMs);
    if (nowMs - lastSweepMs >= DAY_MS) {
      await engine.sweepOnce();
      lastSweepMs = nowMs;
    }
    const due = await nextStop(db, step);
    const later = outside?.next();
    const next = due === undefined ? later : later === undefined ? due : Math.min(due, later);
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
