// A card the merchant sends while an attempt on the old card is in flight, on each database:
// the attempt finishes on the old card (it was sent), its decline is not re-planned for the old
// card, and the new card's first attempt is due at once and approves the order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { DEFAULT_ENGINE_CONFIG } from '../../helpers/engine.ts';
import { waitFor } from '../../helpers/wait.ts';
import { ManualClock } from '../../../src/clock.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { attempts, orders } from '../../../src/db/schema.ts';
import type { Processor } from '../../../src/processors/types.ts';

describe.each(DB_KINDS)('a card update while an attempt is in flight on %s', (kind) => {
  let f: ApiFixture;
  let engine: Engine;
  let hold: Promise<void> | undefined;
  let calls = 0;
  const clock = new ManualClock(new Date('2026-11-27T12:00:00Z'));
  const db = () => f.t.tdb.database.db;

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
    const inner = f.t.api.orders.processor!;
    // The sandbox, held at the first call until the test lets it answer.
    const held: Processor = { ...inner, local: undefined, async authorize(req) {
      calls++;
      if (hold) await hold;
      return inner.authorize(req);
    } };
    engine = createEngine({ db: db(), processor: held, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true });
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await f?.close();
  });

  it('finishes the old card\'s attempt, then charges the new card at once', async () => {
    const old = await f.a.tokenOf('4000000000000002'); // do not honor, every time
    const expiryDateUtc = new Date(clock.now().getTime() + 20 * 86_400_000).toISOString();
    const key = (await f.post('/v1/evaluate', evaluateBody(old, { mit: true, top: { expiryDateUtc }, tx: { responseCode: '05', responseCodeSource: 'iso8583' } }))).json().orderSessionKey as string;
    await engine.runOnce();
    await db().update(orders).set({ nextAttemptAt: clock.now() }).where(eq(orders.id, key));
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const running = engine.runOnce();
    await waitFor(() => calls === 1, { what: 'the old card\'s attempt at the processor' });
    const updated = await f.post(`/v1/orders/${key}/payment-method`, { token: await f.a.tokenOf('4111111111111111') });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ status: 'PROCESSING' });
    hold = undefined;
    release();
    expect(await running).toBe(1);
    expect((await db().select().from(orders).where(eq(orders.id, key)))[0]).toMatchObject({ status: 'PENDING', planReason: 'card_updated', nextAttemptAt: clock.now() });
    expect(await engine.runOnce()).toBe(1);
    expect((await db().select().from(orders).where(eq(orders.id, key)))[0]).toMatchObject({ status: 'APPROVED', recoveredBy: 'merchant_update', attemptCount: 2 });
    const tries = await db().select().from(attempts).where(eq(attempts.orderSessionKey, key)).orderBy(asc(attempts.attemptNo));
    expect(tries.map((a) => [a.cardToken === old ? 'old' : 'new', a.status])).toEqual([['old', 'declined'], ['new', 'approved']]);
  });
});
