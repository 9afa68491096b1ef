// A stop that one order of a card earns holds every other order of the card at its claim, not
// only at its next plan: an order planned before the card's Mastercard MAC 03 arrived on
// another order is not sent when it comes due; it is re-planned, which ends it with the
// card-level reason, and no attempt row is written for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-30T00:00:00Z');
const HOUR = 3_600_000;
// Declined 05 with MAC 03 (do not try again) at every attempt: samples/test-cards.json.
const MAC_03 = '5200828282828210';

describe.each(DB_KINDS)('card-level stops at the claim on %s', (kind) => {
  let f: EngineFixture;
  beforeAll(async () => {
    f = await engineFixture(kind);
  });
  afterAll(() => f.close());

  it('does not send an order of the card whose other order received MAC 03 after it was planned', async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({ db: f.db, clock, log: silentLog, config: engineConfig(), processor: createSandboxProcessor({ db: f.db, vault: f.vault, clock }) });
    const card = sandboxTestCards().find(MAC_03)!;
    const token = await f.tokenOf(MAC_03);
    // Both planned already, the second for two hours later, with a soft original decline each.
    const base = { card, token, merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING' as const, declineCode: '51' };
    const [first, second] = await insertTestOrders(f.db, [
      { ...base, nextAttemptAt: T0 },
      { ...base, nextAttemptAt: new Date(T0.getTime() + 2 * HOUR) },
    ]);
    await engine.runOnce();
    const afterFirst = await f.db.select({ order: attempts.orderSessionKey, advice: attempts.adviceCode }).from(attempts).where(inArray(attempts.orderSessionKey, [first!, second!]));
    expect(afterFirst).toEqual([{ order: first, advice: '03' }]);
    const [planned] = await f.db.select({ status: orders.status }).from(orders).where(eq(orders.id, second!));
    expect(planned?.status).toBe('PENDING');

    clock.advance(2 * HOUR + 60_000);
    await engine.runOnce();
    const made = await f.db.select({ order: attempts.orderSessionKey }).from(attempts).where(inArray(attempts.orderSessionKey, [first!, second!]));
    expect(made.map((a) => a.order)).toEqual([first]);
    const [ended] = await f.db.select({ status: orders.status, reason: orders.statusReason }).from(orders).where(eq(orders.id, second!));
    expect(ended?.status).toBe('EXPIRED');
    expect(ended?.reason).toMatch(/mastercard_advice_do_not_retry/);
  });
});
