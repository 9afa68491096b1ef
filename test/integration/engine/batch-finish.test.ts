// A started engine writes a batch's results file right after the batch's last order is final,
// without waiting for the periodic sweep (here scheduled once a year), and, on PostgreSQL,
// when another instance held the batch sweep's lock at that moment, as soon as it lets go.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { waitFor } from '../../helpers/wait.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { systemClock } from '../../../src/clock.ts';
import { batches, orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

// One order per approving test card: the engine sends one attempt per card at a time, and a
// card's next order would wait a minute of this real clock.
const CARDS = ['4111111111111111', '4242424242424242', '4000056655665556', '4000008260000000', '5555555555554444', '2223003122003222', '378282246310005', '6011111111111117', '3566002020360505', '36227206271667'];
const ORDERS = CARDS.length;
/** The batch sweep's advisory lock key (src/engine/sweeps.ts). */
const BATCH_LOCK = 0x72737703n;

const until = (check: () => Promise<boolean> | boolean, what: string, timeoutMs?: number) => waitFor(check, { what, timeoutMs });

describe.each(DB_KINDS)('results file after the last order, between sweeps, on %s', (kind) => {
  let f: EngineFixture;
  let outbound: string;
  let batchId: string;

  beforeEach(async () => {
    f = await engineFixture(kind);
    outbound = mkdtempSync(join(tmpdir(), 'rescued-batch-finish-'));
    batchId = randomUUID();
    const now = new Date();
    await f.db.insert(batches).values({ id: batchId, merchantId: f.merchantId, fileName: 'prompt.json', sha256: 'p'.repeat(64), status: 'accepted', entryCount: ORDERS, acceptedCount: ORDERS, rejectedCount: 0, receivedAt: now });
    const cards = CARDS.map((n) => sandboxTestCards().find(n)!);
    const tokens = await Promise.all(CARDS.map((n) => f.tokenOf(n)));
    // Due now, approving cards: one attempt each, then final.
    await insertTestOrders(f.db, Array.from({ length: ORDERS }, (_, i) => ({
      card: cards[i]!, token: tokens[i]!, merchantId: f.merchantId, createdAt: new Date(now.getTime() - 3_600_000), expiresAt: new Date(now.getTime() + 20 * 86_400_000),
      status: 'PENDING' as const, nextAttemptAt: new Date(now.getTime() - 1000), batchId, sequenceNumber: i + 1, declineCode: '91',
    })));
  });
  afterEach(async () => {
    await f.close();
    rmSync(outbound, { recursive: true, force: true });
  });

  const engineOf = () => createEngine({
    db: f.db, processor: createSandboxProcessor({ db: f.db, vault: f.vault, clock: systemClock }), clock: systemClock, log: silentLog, testMode: true,
    config: engineConfig({ pollIntervalMs: 50, sweepCron: '0 0 0 1 1 *' }), outboundFor: () => outbound,
  });
  const file = () => join(outbound, 'prompt.json.results.json');
  const allFinal = async () => (await f.db.select({ status: orders.status }).from(orders).where(eq(orders.batchId, batchId))).every((o) => o.status === 'APPROVED');

  it('writes it without the sweep', async () => {
    const engine = engineOf();
    engine.start();
    try {
      await until(allFinal, 'every order approved');
      await until(() => existsSync(file()), 'the results file', 10_000);
      // The file is renamed into place just before its transaction marks the batch.
      await until(async () => (await f.db.select({ at: batches.resultsWrittenAt }).from(batches).where(eq(batches.id, batchId)))[0]!.at !== null, 'the batch marked', 10_000);
    } finally {
      await engine.stop();
    }
  });

  // A second session holding the lock needs a server: PGlite is one connection.
  if (kind === 'postgres') it('writes it once another instance lets go of the batch lock', async () => {
    const other = postgres(f.tdb.url!, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const lock = other.begin(async (t) => {
      await t`select pg_advisory_xact_lock(${BATCH_LOCK.toString()}::bigint)`;
      holding();
      await released;
    });
    await held;
    const engine = engineOf();
    engine.start();
    try {
      await until(allFinal, 'every order approved');
      // Looks made while the lock is held find it busy and write nothing.
      expect(existsSync(file())).toBe(false);
      release();
      await lock;
      await until(() => existsSync(file()), 'the results file after the lock is released', 10_000);
    } finally {
      release();
      await engine.stop();
      await other.end();
    }
  });
});
