// The engine's grouped database work: attempts answered together are recorded together with
// their outbox events and deliveries; within one group an order cancelled meanwhile is voided
// and one whose lease another instance took is left to it; a claim that holds two orders of
// one card with room for one attempt sends one and re-plans the others without an attempt row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, orders, processorCalls, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { CARD_BUSY_MS } from '../../../src/engine/claim.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import type { Processor } from '../../../src/processors/types.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { waitFor } from '../../helpers/wait.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-30T00:00:00Z');
const card = (n: string) => sandboxTestCards().find(n)!;

describe.each(DB_KINDS)('grouped attempts on %s', (kind) => {
  let f: EngineFixture;
  let clock: ManualClock;
  const config = engineConfig;

  beforeAll(async () => {
    f = await engineFixture(kind, { poolSize: 8 });
    clock = new ManualClock(T0);
    // Every merchant has an endpoint row; with a URL its events get deliveries.
    await f.db.update(webhookEndpoints).set({ url: 'http://127.0.0.1:9/hooks' }).where(eq(webhookEndpoints.merchantId, f.merchantId));
  });
  afterAll(() => f.close());

  /** `n` due orders on the card `number`, or one due order on each card of `number`. */
  async function pending(number: string | string[], n = 1): Promise<string[]> {
    const numbers = typeof number === 'string' ? Array.from({ length: n }, () => number) : number;
    const rows = [];
    for (const x of numbers) {
      rows.push({ card: card(x), token: await f.tokenOf(x), merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING' as const, nextAttemptAt: T0 });
    }
    return insertTestOrders(f.db, rows);
  }

  /** Lets a test act inside the processor call of some keys (before the sandbox answers). */
  function hooked(during: (key: string) => Promise<void>): { p: Processor; voids: string[]; keys: string[] } {
    const inner = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
    const voids: string[] = [];
    const keys: string[] = [];
    return {
      voids,
      keys,
      p: {
        name: inner.name,
        async authorize(r) {
          keys.push(r.idempotencyKey);
          await during(r.idempotencyKey);
          return inner.authorize(r);
        },
        refund: (r) => inner.refund(r),
        async void(r) {
          voids.push(r.processorRef);
          return inner.void(r);
        },
      },
    };
  }

  it('records answers that arrive together, each with its event and delivery', async () => {
    clock.set(T0);
    // One attempt per card at a time: distinct cards, so that all of them go in one claim.
    const approved = await pending(['4242424242424242', '4000056655665556', '4000008260000000', '2223003122003222', '378282246310005', '3566002020360505']);
    const declined = await pending(['4000000000000002', '4000000000009995', '4000000000000119', '6011000990139424']);
    const ids = [...approved, ...declined];
    const engine = createEngine({ db: f.db, processor: createSandboxProcessor({ db: f.db, vault: f.vault, clock }), clock, log: silentLog, config: config({ concurrency: 12, claimBatchSize: 12 }) });
    expect(await engine.runOnce()).toBe(10);
    const rows = await f.db.select().from(orders).where(inArray(orders.id, ids));
    expect(rows.filter((o) => approved.includes(o.id)).map((o) => [o.status, o.attemptCount, o.leaseOwner])).toEqual(approved.map(() => ['APPROVED', 1, null]));
    // Declined (05, 51, 96, 91: soft) and re-planned: back to PENDING at a later time, not held.
    for (const o of rows.filter((r) => declined.includes(r.id))) {
      expect(o).toMatchObject({ status: 'PENDING', attemptCount: 1, leaseOwner: null });
      expect(o.nextAttemptAt!.getTime()).toBeGreaterThan(T0.getTime());
    }
    const tried = await f.db.select().from(attempts).where(inArray(attempts.orderSessionKey, ids));
    expect(tried.map((a) => a.status).sort()).toEqual([...approved.map(() => 'approved'), ...declined.map(() => 'declined')].sort());
    expect(tried.filter((a) => a.status === 'declined').map((a) => a.responseCode).sort()).toEqual(['05', '51', '91', '96']);
    expect(tried.filter((a) => a.status === 'declined').every((a) => a.declineClass !== null)).toBe(true);
    const events = await f.db.select().from(webhookEvents).where(inArray(webhookEvents.orderSessionKey, ids));
    expect(events.map((e) => e.orderSessionKey).sort()).toEqual([...approved].sort());
    expect(events.every((e) => e.type === 'order.completed')).toBe(true);
    const deliveries = await f.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.eventId, events.map((e) => e.id)));
    expect(deliveries).toHaveLength(approved.length);
    expect(deliveries.every((d) => d.status === 'pending')).toBe(true);
  });

  it('in one group, voids the approval of an order cancelled meanwhile and leaves one taken by another instance', async () => {
    clock.set(T0);
    const ids = await pending(['5555555555554444', '6011111111111117', '36227206271667', '4242424242424242', '2223003122003222']);
    const [cancelled, taken] = ids as [string, string];
    const h = hooked(async (key) => {
      if (key.startsWith(cancelled)) await f.db.update(orders).set({ status: 'CANCELLED', statusReason: 'cancelled_by_merchant', finishedAt: clock.now() }).where(eq(orders.id, cancelled));
      if (key.startsWith(taken)) await f.db.update(orders).set({ leaseOwner: 'another-instance' }).where(eq(orders.id, taken));
    });
    const engine = createEngine({ db: f.db, processor: h.p, clock, log: silentLog, config: config({ concurrency: 5, claimBatchSize: 5 }), instanceId: 'this-instance' });
    expect(await engine.runOnce()).toBe(4); // three approved, one voided; the taken one is not ours to record
    const byId = new Map((await f.db.select().from(orders).where(inArray(orders.id, ids))).map((o) => [o.id, o]));
    expect(byId.get(cancelled)).toMatchObject({ status: 'CANCELLED', attemptCount: 1, confirmationId: null });
    expect(byId.get(taken)).toMatchObject({ status: 'PROCESSING', attemptCount: 0, leaseOwner: 'another-instance' });
    for (const id of ids.slice(2)) expect(byId.get(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    const rows = new Map((await f.db.select().from(attempts).where(inArray(attempts.orderSessionKey, ids))).map((a) => [a.orderSessionKey, a]));
    expect(rows.get(cancelled)).toMatchObject({ status: 'voided', reason: 'voided_after_cancel' });
    expect(rows.get(taken)).toMatchObject({ status: 'in_flight' });
    expect(h.voids).toEqual([rows.get(cancelled)!.processorRef]);
    // The taken order's answer is stored: its holder gets the same answer for the same key.
    expect(await f.db.select().from(processorCalls).where(eq(processorCalls.reference, taken))).toHaveLength(1);
  });

  it('of two orders of one card claimed together with room for one attempt, sends one and re-plans the other', async () => {
    clock.set(T0);
    const ids = await pending('4000000000000010', 2);
    const h = hooked(async () => {});
    const engine = createEngine({ db: f.db, processor: h.p, clock, log: silentLog, config: config({ visaMaxReattemptsPer30Days: 1 }) });
    expect(await engine.runOnce()).toBe(1);
    expect(h.keys).toHaveLength(1);
    const sent = h.keys[0]!.split(':')[0]!;
    const other = ids.find((id) => id !== sent)!;
    expect(ids).toContain(sent);
    expect(await f.db.select().from(orders).where(eq(orders.id, sent))).toMatchObject([{ status: 'APPROVED', attemptCount: 1 }]);
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, other))).toEqual([]);
    const [o] = await f.db.select().from(orders).where(eq(orders.id, other));
    expect(o!.status === 'PENDING' || o!.status === 'EXPIRED').toBe(true);
    expect(o).toMatchObject({ attemptCount: 0, leaseOwner: null });
    if (o!.status === 'PENDING') expect(o!.nextAttemptAt!.getTime()).toBeGreaterThan(T0.getTime());
  });

  it('sends one attempt per card at a time: the other order of the card waits for its answer, and a MAC 03 in it stops that order unsent', async () => {
    clock.set(T0);
    // 5200 8282 8282 8210 declines 05 with MAC 03 (do not retry this card) at the sandbox.
    const ids = await pending('5200828282828210', 2);
    const h = hooked(async () => {});
    const engine = createEngine({ db: f.db, processor: h.p, clock, log: silentLog, config: config({ concurrency: 2, claimBatchSize: 2 }) });
    expect(await engine.runOnce()).toBe(1);
    expect(h.keys).toHaveLength(1);
    const sent = h.keys[0]!.split(':')[0]!;
    const other = ids.find((id) => id !== sent)!;
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, other))).toEqual([]);
    const [waiting] = await f.db.select().from(orders).where(eq(orders.id, other));
    expect(waiting).toMatchObject({ status: 'PENDING', attemptCount: 0, leaseOwner: null });
    // It waited up to CARD_BUSY_MS for the first attempt's answer, and the answer woke it: due now.
    expect(waiting!.nextAttemptAt!.getTime()).toBeLessThan(T0.getTime() + CARD_BUSY_MS);
    expect(waiting!.nextAttemptAt!.getTime()).toBe(T0.getTime());
    // Its turn: the first order's MAC 03 speaks for the card, so it ends without an attempt.
    const tried = await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, sent));
    expect(tried.map((a) => [a.status, a.responseCode, a.adviceCode])).toEqual([['declined', '05', '03']]);
    expect(await f.db.select().from(orders).where(eq(orders.id, sent))).toMatchObject([{ status: 'EXPIRED' }]);
    expect(await engine.runOnce()).toBe(0);
    expect(h.keys).toHaveLength(1);
    expect(await f.db.select().from(orders).where(eq(orders.id, other))).toMatchObject([{ status: 'EXPIRED', attemptCount: 0, planReason: 'mastercard_advice_do_not_retry' }]);
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, other))).toEqual([]);
  });

  it('the busy card\'s answer recorded while the other order is still held by its claim: that order is woken, not left its minute', async () => {
    clock.set(T0);
    // Two orders of one approving Mastercard; instance 1 takes the first alone and holds its
    // call at the processor until instance 2 has claimed the second and found the card busy.
    const [first, second] = await pending('5555555555554444', 2);
    await f.db.update(orders).set({ nextAttemptAt: new Date(T0.getTime() - 1000) }).where(eq(orders.id, first!));
    let answer!: () => void;
    const mayAnswer = new Promise<void>((r) => (answer = r));
    const one = createEngine({ db: f.db, processor: hooked(async () => mayAnswer).p, clock, log: silentLog, config: config({ concurrency: 1, claimBatchSize: 1 }) });
    const oneDone = one.runOnce();
    await waitFor(async () => (await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, first!))).some((a) => a.status === 'in_flight'), { what: 'the first order\'s attempt in flight' });
    // Instance 2's database: once its claim has committed with the second order held, the first
    // order's answer is recorded (and its wake-up made) before instance 2 re-plans the second.
    let raced = false;
    const db2 = new Proxy(f.db, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop !== 'transaction') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        return async (fn: Parameters<typeof f.db.transaction>[0]) => {
          const out = await target.transaction(fn);
          const [held] = await target.select({ status: orders.status }).from(orders).where(eq(orders.id, second!));
          if (!raced && held?.status === 'PROCESSING') {
            raced = true;
            answer();
            expect(await oneDone).toBe(1);
          }
          return out;
        };
      },
    });
    const two = createEngine({ db: db2, processor: hooked(async () => {}).p, clock, log: silentLog, config: config({ concurrency: 1, claimBatchSize: 1 }) });
    expect(await two.runOnce()).toBe(0);
    expect(raced).toBe(true);
    expect(await f.db.select().from(orders).where(eq(orders.id, first!))).toMatchObject([{ status: 'APPROVED' }]);
    const [waiting] = await f.db.select().from(orders).where(eq(orders.id, second!));
    expect(waiting).toMatchObject({ status: 'PENDING', attemptCount: 0, leaseOwner: null });
    // Due now: the claim looked again after its re-plan and found the card answered.
    expect(waiting!.nextAttemptAt!.getTime()).toBe(T0.getTime());
    // And it goes at the next claim (leaving no due order behind for the tests after).
    expect(await two.runOnce()).toBe(1);
    expect(await f.db.select().from(orders).where(eq(orders.id, second!))).toMatchObject([{ status: 'APPROVED', attemptCount: 1 }]);
  });

  it('re-plans every order a claim drops at the card caps together, each with its event when it stops', async () => {
    clock.set(T0);
    // A Visa card no other test of this file charges: one reattempt in 30 days is the cap here.
    const ids = await pending('4111111111111111', 6);
    const h = hooked(async () => {});
    const engine = createEngine({ db: f.db, processor: h.p, clock, log: silentLog, config: config({ visaMaxReattemptsPer30Days: 1 }) });
    expect(await engine.runOnce()).toBe(1);
    expect(h.keys).toHaveLength(1);
    const others = ids.filter((id) => id !== h.keys[0]!.split(':')[0]);
    expect(others).toHaveLength(5);
    expect(await f.db.select().from(attempts).where(inArray(attempts.orderSessionKey, others))).toEqual([]);
    // The card's slot frees 30 days after T0, past the orders' deadline: each stops.
    const rows = await f.db.select().from(orders).where(inArray(orders.id, others));
    expect(rows).toHaveLength(5);
    for (const o of rows) expect(o).toMatchObject({ status: 'EXPIRED', statusReason: 'visa_reattempt_cap', attemptCount: 0, leaseOwner: null, leaseExpiresAt: null });
    const events = await f.db.select().from(webhookEvents).where(inArray(webhookEvents.orderSessionKey, others));
    expect(events.map((e) => [e.type, e.orderSessionKey]).sort()).toEqual(others.map((id) => ['order.expired', id]).sort());
  });
});
