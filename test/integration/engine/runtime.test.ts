// The engine's runtime against a real database: two instances never run the same attempt, a
// lost lease is retried with the same idempotency key (no second charge), an approval that
// lands on a cancelled order is voided, a processor failure keeps the key, and the expiry
// sweep ends open orders at their deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { waitFor } from '../../helpers/wait.ts';
import { openDatabase, type Database } from '../../../src/db/client.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, orders, processorCalls, webhookEvents } from '../../../src/db/schema.ts';
import { claimDueOrders } from '../../../src/db/queries/claim-orders.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { CARD_BUSY_MS } from '../../../src/engine/claim.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import type { Processor } from '../../../src/processors/types.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-30T00:00:00Z');
const card = (n: string) => sandboxTestCards().find(n)!;

/** Counts authorize calls per idempotency key, and lets a test act inside a call. */
function counting(inner: Processor, during?: (key: string) => Promise<void>) {
  const calls = new Map<string, number>();
  const voids: string[] = [];
  const p: Processor = {
    name: inner.name,
    async authorize(r) {
      calls.set(r.idempotencyKey, (calls.get(r.idempotencyKey) ?? 0) + 1);
      await during?.(r.idempotencyKey);
      return inner.authorize(r);
    },
    refund: (r) => inner.refund(r),
    async void(r) {
      voids.push(r.processorRef);
      return inner.void(r);
    },
  };
  return { p, calls, voids };
}

describe.each(DB_KINDS)('engine runtime on %s', (kind) => {
  let f: EngineFixture;
  let clock: ManualClock;
  const config = engineConfig;

  beforeAll(async () => {
    f = await engineFixture(kind, { poolSize: 8 });
    clock = new ManualClock(T0);
  });
  afterAll(() => f.close());

  async function pending(number: string, n: number, at = T0): Promise<string[]> {
    const token = await f.tokenOf(number);
    return insertTestOrders(
      f.db,
      Array.from({ length: n }, () => ({ card: card(number), token, merchantId: f.merchantId, createdAt: new Date(at.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING' as const, nextAttemptAt: at })),
    );
  }

  it('two instances on one database never run the same attempt twice', async () => {
    clock.set(T0);
    // Ten orders per card at most: every card stays inside its networks' 30-day caps.
    const approving = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '2223003122003222', '4242424242424242'];
    const ids: string[] = [];
    for (const n of approving) ids.push(...(await pending(n, 10)));
    ids.push(...(await pending('4000000000000002', 10)), ...(await pending('4000000000000077', 4)));
    // A second pool on the server: a second replica. PGlite is one process: both share it.
    let second: Database | undefined;
    if (f.tdb.url) second = await openDatabase({ url: f.tdb.url, poolSize: 4, log: silentLog });
    const counter = counting(createSandboxProcessor({ db: f.db, vault: f.vault, clock }));
    const engines = [f.db, second?.db ?? f.db].map((db, i) =>
      createEngine({ db, processor: counter.p, clock, log: silentLog, config: config({ claimBatchSize: 7, concurrency: 4 }), instanceId: `e${i}` }),
    );
    try {
      for (let day = 0; day < 10; day++) {
        // A card's orders go one at a time (one attempt per card in flight): the others of
        // the card wait CARD_BUSY_MS, so each day runs rounds a minute apart.
        for (let round = 0; round < 11; round++) {
          for (;;) {
            const done = await Promise.all(engines.map((e) => e.runOnce()));
            if (done.every((n) => n === 0)) break;
          }
          clock.advance(CARD_BUSY_MS);
        }
        clock.set(T0.getTime() + (day + 1) * 86_400_000 + 6 * 3_600_000);
      }
    } finally {
      await second?.close();
    }
    const rows = await f.db.select().from(attempts).where(inArray(attempts.orderSessionKey, ids));
    // Every key went to the processor once, and every call has its attempt row.
    expect(rows.length).toBeGreaterThan(60);
    expect([...counter.calls.values()].every((n) => n === 1)).toBe(true);
    expect(counter.calls.size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(rows.length);
    const calls = await f.db.select({ n: sql<number>`count(*)::int` }).from(processorCalls).where(inArray(processorCalls.reference, ids));
    expect(calls[0]!.n).toBe(rows.length);
    // The cards that approve did so at their first attempt; nothing is left held.
    const approveFirst = await f.db.select().from(orders).where(inArray(orders.id, ids.slice(0, 60)));
    expect(approveFirst.filter((o) => !(o.status === 'APPROVED' && o.attemptCount === 1)).map((o) => [o.cardLast4, o.status, o.attemptCount, o.statusReason, o.planReason])).toEqual([]);
    const held = await f.db.select().from(orders).where(inArray(orders.id, ids));
    expect(held.filter((o) => o.status === 'PROCESSING' || o.leaseOwner !== null)).toEqual([]);
  });

  it('two instances claiming two orders of one card at once: one goes at once, never both together', async () => {
    // The claims' statements interleave (on PGlite both share one connection): before the
    // card's lock, each saw the other's unsent attempt and both waited, round after round.
    const start = new Date(T0.getTime() + 12 * 86_400_000);
    clock.set(start);
    let second: Database | undefined;
    if (f.tdb.url) second = await openDatabase({ url: f.tdb.url, poolSize: 2, log: silentLog });
    const sandbox = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
    // Calls at the processor per card at once, and the most there ever were.
    const open = new Map<string, number>();
    let most = 0;
    const calls = new Set<string>();
    const p: Processor = {
      name: sandbox.name,
      async authorize(r) {
        calls.add(r.idempotencyKey);
        open.set(r.cardToken, (open.get(r.cardToken) ?? 0) + 1);
        most = Math.max(most, open.get(r.cardToken)!);
        try {
          await new Promise((resolve) => setImmediate(resolve)); // a call that spans a turn, as a real one does
          return await sandbox.authorize(r);
        } finally {
          open.set(r.cardToken, open.get(r.cardToken)! - 1);
        }
      },
      refund: (r) => sandbox.refund(r),
      void: (r) => sandbox.void(r),
    };
    const engines = [f.db, second?.db ?? f.db].map((db, i) =>
      createEngine({ db, processor: p, clock, log: silentLog, config: config({ claimBatchSize: 1, concurrency: 1 }), instanceId: `race${i}` }),
    );
    const sent = (ids: string[]) => [...calls].filter((k) => ids.some((id) => k.startsWith(id))).length;
    try {
      for (const n of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '2223003122003222', '4242424242424242']) {
        const ids = await pending(n, 2, clock.now());
        await Promise.all(engines.map((e) => e.runOnce()));
        // One at least; both only one after the other (the first answered before the second's check).
        expect(sent(ids), `card ${n.slice(-4)}: the racing claims`).toBeGreaterThanOrEqual(1);
        clock.advance(CARD_BUSY_MS);
        await Promise.all(engines.map((e) => e.runOnce()));
        expect(sent(ids), `card ${n.slice(-4)}: the waiting order, once the card is free`).toBe(2);
        clock.advance(3_600_000);
      }
    } finally {
      await second?.close();
    }
    expect(most, 'calls on one card at the processor at once').toBe(1);
  });

  it('started, polls for due orders and runs them; stop waits for the attempts in flight', async () => {
    clock.set(T0);
    // Five cards: one card's orders would go one at a time, a minute apart on a clock no one moves.
    const ids: string[] = [];
    for (const n of ['4000000000000010', '4000056655665556', '5555555555554444', '378282246310005', '6011111111111117']) ids.push(...(await pending(n, 1)));
    const counter = counting(createSandboxProcessor({ db: f.db, vault: f.vault, clock, latencyMs: 5 }));
    const engine = createEngine({ db: f.db, processor: counter.p, clock, log: silentLog, config: config({ pollIntervalMs: 20, claimBatchSize: 2 }) });
    engine.start();
    await waitFor(async () => (await f.db.select({ status: orders.status }).from(orders).where(inArray(orders.id, ids))).every((r) => r.status === 'APPROVED'), { what: 'the five orders approved' });
    await engine.stop();
    expect(await f.db.select({ status: orders.status }).from(orders).where(inArray(orders.id, ids))).toEqual(ids.map(() => ({ status: 'APPROVED' })));
    expect(counter.calls.size).toBe(5);
  });

  it('a lost lease is retried with the same key: the stored answer is used, nothing is charged twice', async () => {
    clock.set(T0);
    const [id] = await pending('36227206271667', 1);
    const sandbox = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
    // An instance claims the order, starts attempt 1, gets the approval, and dies before recording it.
    const [claimed] = await claimDueOrders(f.db, 'dead', clock.now(), new Date(clock.now().getTime() + 120_000), 1);
    expect(claimed?.id).toBe(id);
    await f.db.insert(attempts).values({ orderSessionKey: id!, merchantId: f.merchantId, cardToken: claimed!.cardToken, attemptNo: 1, idempotencyKey: `${id}:1`, status: 'in_flight', amount: 1999, currency: 'USD', startedAt: clock.now() });
    const first = await sandbox.authorize({ idempotencyKey: `${id}:1`, reference: id!, merchantId: f.merchantId, cardToken: claimed!.cardToken, amount: 1999, currency: 'USD', isMIT: true });
    expect(first.replayed).toBe(false);

    const counter = counting(sandbox);
    const engine = createEngine({ db: f.db, processor: counter.p, clock, log: silentLog, config: config() });
    expect(await engine.runOnce()).toBe(0); // still leased: nothing to do
    clock.advance(121_000);
    expect((await engine.sweepOnce()).reclaimed).toBe(1);
    expect(await engine.runOnce()).toBe(1);
    expect([...counter.calls.entries()]).toEqual([[`${id}:1`, 1]]);
    const [order] = await f.db.select().from(orders).where(eq(orders.id, id!));
    expect(order).toMatchObject({ status: 'APPROVED', attemptCount: 1, confirmationId: first.processorRef, leaseOwner: null });
    expect(await f.db.select().from(processorCalls).where(eq(processorCalls.reference, id!))).toHaveLength(1);
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id!))).toMatchObject([{ attemptNo: 1, status: 'approved' }]);
  });

  it('an approval that lands on an order cancelled meanwhile is voided', async () => {
    clock.set(T0);
    const [id] = await pending('3566002020360505', 1);
    const cancel = async () => {
      await f.db.update(orders).set({ status: 'CANCELLED', statusReason: 'cancelled', finishedAt: clock.now() }).where(eq(orders.id, id!));
    };
    const counter = counting(createSandboxProcessor({ db: f.db, vault: f.vault, clock }), cancel);
    const engine = createEngine({ db: f.db, processor: counter.p, clock, log: silentLog, config: config() });
    expect(await engine.runOnce()).toBe(1);
    const [order] = await f.db.select().from(orders).where(eq(orders.id, id!));
    expect(order).toMatchObject({ status: 'CANCELLED', attemptCount: 1, confirmationId: null });
    const [attempt] = await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id!));
    expect(attempt).toMatchObject({ status: 'voided', reason: 'voided_after_cancel' });
    expect(counter.voids).toEqual([attempt!.processorRef]);
    const stored = await f.db.select().from(processorCalls).where(eq(processorCalls.reference, id!));
    expect(stored.map((c) => [c.operation, c.approved]).sort()).toEqual([['authorize', true], ['void', true]]);
  });

  it('a processor failure returns the order to the queue and the retry keeps the key', async () => {
    clock.set(T0);
    const [id] = await pending('4000056655665556', 1);
    let fail = true;
    const counter = counting(createSandboxProcessor({ db: f.db, vault: f.vault, clock }), async () => {
      if (fail) {
        fail = false;
        throw new Error('connection reset');
      }
    });
    const engine = createEngine({ db: f.db, processor: counter.p, clock, log: silentLog, config: config() });
    expect(await engine.runOnce()).toBe(0);
    expect(await f.db.select().from(orders).where(eq(orders.id, id!))).toMatchObject([{ status: 'PENDING', attemptCount: 0 }]);
    clock.advance(60_000);
    expect(await engine.runOnce()).toBe(1);
    expect([...counter.calls.entries()]).toEqual([[`${id}:1`, 2]]);
    expect(await f.db.select().from(orders).where(eq(orders.id, id!))).toMatchObject([{ status: 'APPROVED', attemptCount: 1 }]);
  });

  it('plans a SUBMITTED order from its original decline, and the sweep expires open orders at the deadline', async () => {
    clock.set(T0);
    const token = await f.tokenOf('4000008260000000');
    // The hard decline on another card: an original category 1 decline speaks for its card
    // (docs/engine.md, "What the card's windows count"), and would stop the soft order too.
    const [soft, hard] = await insertTestOrders(f.db, [
      { card: card('4000008260000000'), token, merchantId: f.merchantId, createdAt: T0, expiresAt: new Date(T0.getTime() + 3 * 86_400_000) },
      { card: card('4242424242424242'), token: await f.tokenOf('4242424242424242'), merchantId: f.merchantId, createdAt: T0, expiresAt: EXPIRY, declineCode: '04' },
    ]);
    // Card updates off: a pickup-card decline ends the order at once, as before them (with
    // them on, it would wait for an updated card: test/integration/engine/card-updates.test.ts).
    const engine = createEngine({ db: f.db, processor: createSandboxProcessor({ db: f.db, vault: f.vault, clock }), clock, log: silentLog, config: config({ awaitUpdatedCard: 'off' }), testMode: true });
    expect(await engine.runOnce()).toBe(0);
    const [a] = await f.db.select().from(orders).where(eq(orders.id, soft!));
    // No outcomes learned yet: the static model's slot, said to be the prior's.
    expect(a).toMatchObject({ status: 'PENDING', planReason: 'prior: daily_spacing' });
    expect(a!.nextAttemptAt!.getTime()).toBeGreaterThan(T0.getTime());
    expect(await f.db.select().from(orders).where(eq(orders.id, hard!))).toMatchObject([{ status: 'EXPIRED', attemptCount: 0, statusReason: 'visa_category_1: code 04' }]);
    // The deadline passes with the order still waiting: the sweep ends it, with its event.
    await f.db.update(orders).set({ nextAttemptAt: new Date(T0.getTime() + 10 * 86_400_000) }).where(eq(orders.id, soft!));
    clock.set(T0.getTime() + 3 * 86_400_000);
    expect((await engine.sweepOnce()).expired).toBe(1);
    expect(await f.db.select().from(orders).where(eq(orders.id, soft!))).toMatchObject([{ status: 'EXPIRED', statusReason: 'expiry_reached' }]);
    const events = await f.db.select().from(webhookEvents).where(inArray(webhookEvents.orderSessionKey, [soft!, hard!]));
    expect(events.map((e) => [e.orderSessionKey, e.type]).sort()).toEqual([[hard, 'order.expired'], [soft, 'order.expired']].sort());
    expect((events[0]!.payload as { IsTestMode: boolean }).IsTestMode).toBe(true);
  });
});
