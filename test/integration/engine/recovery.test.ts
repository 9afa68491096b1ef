// What a crash leaves behind is finished by the sweeps: an approval recorded on a cancelled
// order whose void was never sent is voided, and an order whose lease ran out past its
// deadline has its in-flight attempt resolved from the processor's stored answer instead of
// expiring around it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { DEFAULT_ENGINE_CONFIG, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { claimDueOrders } from '../../../src/db/queries/claim-orders.ts';
import { attempts, orders, processorCalls } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import type { Processor } from '../../../src/processors/types.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const card = (n: string) => sandboxTestCards().find(n)!;

describe.each(DB_KINDS)('recovery after a crash on %s', (kind) => {
  let f: EngineFixture;
  let clock: ManualClock;
  let sandbox: Processor;

  beforeAll(async () => {
    f = await engineFixture(kind);
    clock = new ManualClock(T0);
    sandbox = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
  });
  afterAll(() => f.close());

  /** One order of `number`, claimed by a dead instance, with attempt 1 sent and answered but not recorded. */
  async function crashedInFlight(number: string, expiresAt: Date) {
    const token = await f.tokenOf(number);
    const [id] = (await insertTestOrders(f.db, [{ card: card(number), token, merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt, status: 'PENDING', nextAttemptAt: T0 }])) as [string];
    const [claimed] = await claimDueOrders(f.db, 'dead', clock.now(), new Date(clock.now().getTime() + 120_000), 1);
    expect(claimed?.id).toBe(id);
    await f.db.insert(attempts).values({ orderSessionKey: id, merchantId: f.merchantId, cardToken: token, attemptNo: 1, idempotencyKey: `${id}:1`, status: 'in_flight', amount: 1999, currency: 'USD', startedAt: clock.now() });
    const answer = await sandbox.authorize({ idempotencyKey: `${id}:1`, reference: id, merchantId: f.merchantId, cardToken: token, amount: 1999, currency: 'USD', isMIT: true });
    return { id, token, answer };
  }

  it('voids an approval left to_be_voided on a cancelled order', async () => {
    clock.set(T0);
    const { id, answer } = await crashedInFlight('4242424242424242', new Date(T0.getTime() + 10 * 86_400_000));
    // The crash came after the approval was recorded on the cancelled order, before the void.
    await f.db.update(orders).set({ status: 'CANCELLED', attemptCount: 1, leaseOwner: null, leaseExpiresAt: null }).where(eq(orders.id, id));
    await f.db.update(attempts).set({ status: 'approved', reason: 'to_be_voided', responseCode: '00', processorRef: answer.processorRef }).where(eq(attempts.orderSessionKey, id));
    const engine = createEngine({ db: f.db, processor: sandbox, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG });
    expect((await engine.sweepOnce()).voided).toBe(1);
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id))).toMatchObject([{ status: 'voided', reason: 'voided_after_cancel' }]);
    const calls = await f.db.select().from(processorCalls).where(eq(processorCalls.reference, id));
    expect(calls.map((c) => [c.idempotencyKey, c.operation, c.approved]).sort()).toEqual([[`${id}:1`, 'authorize', true], [`${id}:1:void`, 'void', true]]);
    expect((await engine.sweepOnce()).voided).toBe(0);
  });

  it('resolves the in-flight attempt of an order whose lease ran out past its deadline', async () => {
    clock.set(T0);
    const approving = await crashedInFlight('4111111111111111', new Date(T0.getTime() + 60_000));
    const declining = await crashedInFlight('4000000000000002', new Date(T0.getTime() + 60_000));
    const engine = createEngine({ db: f.db, processor: sandbox, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG });
    clock.advance(121_000); // the lease and the deadline are both past
    const report = await engine.sweepOnce();
    expect(report).toMatchObject({ reclaimed: 2, expired: 0 });
    expect(await engine.runOnce()).toBe(2);
    const [a] = await f.db.select().from(orders).where(eq(orders.id, approving.id));
    expect(a).toMatchObject({ status: 'APPROVED', attemptCount: 1, confirmationId: approving.answer.processorRef });
    const [d] = await f.db.select().from(orders).where(eq(orders.id, declining.id));
    expect(d).toMatchObject({ status: 'EXPIRED', attemptCount: 1 });
    for (const id of [approving.id, declining.id]) {
      expect((await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id))).map((r) => r.status)).not.toContain('in_flight');
      expect(await f.db.select().from(processorCalls).where(eq(processorCalls.reference, id))).toHaveLength(1);
    }
  });
});
