// The cascade to the payer's other cards, end to end on each database, through the API: two
// cards tokenized for one payer (POST /v1/tokenize with payer.id), the merchant opted in, an
// MIT whose card was lost or stolen (evaluate) → the engine moves the order to the payer's
// other card and charges it there; the first card is never charged, each card's attempts are
// counted under its own token. Without the opt-in the order ends as before; a card the order
// lists itself (payer.otherCardTokens) comes first; a payer with no other card ends the order.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { DEFAULT_ENGINE_CONFIG } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, orders } from '../../../src/db/schema.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';

const STOLEN = '4000000000009979'; // the sandbox declines it 43 (lost or stolen)
const LOST = '4000000000009987'; // 41
const GOOD = '4111111111111111';
const OTHER_GOOD = '5555555555554444';
const DEBIT = '4000056655665556';

describe.each(DB_KINDS)('cascade to the payer\'s other cards on %s', (kind) => {
  let f: ApiFixture;
  let clock: ManualClock;
  let engine: Engine;

  /** POST /v1/tokenize for merchant A, with the payer when given. */
  async function tokenize(number: string, payerId?: string): Promise<string> {
    const url = `/v1/tokenize?mid=${f.a.mid}&environment=${encodeURIComponent(f.a.tokenizationKey)}`;
    const payload = { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number, month: '12', year: '2035' } }, ...(payerId ? { payer: { id: payerId } } : {}) };
    const res = await f.t.app.inject({ method: 'POST', url, payload });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;
  }

  /** An MIT handed over after `code` on `token`; answers its orderSessionKey. */
  async function handOver(token: string, code: string, payer: Record<string, unknown>): Promise<string> {
    const res = await f.post('/v1/evaluate', evaluateBody(token, { mit: true, tx: { responseCode: code, responseCodeSource: 'NA', responseDescription: null, timestampUtc: new Date(Date.now() - 60_000).toISOString() }, payer }));
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { orderSessionKey: string }).orderSessionKey;
  }

  /** Runs the engine until the order is final (or nothing is left to do). */
  async function settle(id: string) {
    for (let i = 0; i < 10; i++) {
      await engine.runOnce();
      const [o] = await f.t.tdb.database.db.select().from(orders).where(eq(orders.id, id));
      if (['APPROVED', 'EXPIRED', 'CANCELLED'].includes(o!.status)) return o!;
      clock.advance(60_000);
    }
    const [o] = await f.t.tdb.database.db.select().from(orders).where(eq(orders.id, id));
    return o!;
  }

  const attemptsOf = (id: string) => f.t.tdb.database.db.select().from(attempts).where(eq(attempts.orderSessionKey, id));

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    f = await apiFixture(kind, { clock });
    const db = f.t.tdb.database.db;
    engine = createEngine({ db, processor: createSandboxProcessor({ db, vault: f.t.vault, clock }), clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG });
  });
  afterAll(() => f.close());

  it('without the opt-in, the stolen card ends the order as before', async () => {
    const stolen = await tokenize(STOLEN, 'payer-1');
    await tokenize(GOOD, 'payer-1');
    const id = await handOver(stolen, '43', { id: 'payer-1' });
    expect(await settle(id)).toMatchObject({ status: 'EXPIRED', cardToken: stolen, endedCards: null });
    expect(await attemptsOf(id)).toEqual([]);
  });

  it('opted in: the order moves to the payer\'s other card and is charged there; the stolen card never', async () => {
    await f.t.merchants.setSettings(f.a.mid, { cascadeOtherCards: true });
    const stolen = await tokenize(STOLEN, 'payer-1');
    const good = await tokenize(GOOD, 'payer-1');
    const id = await handOver(stolen, '43', { id: 'payer-1' });
    const o = await settle(id);
    // The order keeps its own card (its original decline stays counted there); the payer's other card is its credential.
    expect(o).toMatchObject({ status: 'APPROVED', cardToken: stolen, credential: good, recoveredBy: 'other_card', attemptCount: 1 });
    expect(o.endedCards).toEqual([{ token: stolen, last4: '9979', reason: expect.stringMatching(/lost_or_stolen$/), at: expect.any(String) }]);
    const made = await attemptsOf(id);
    expect(made.map((a) => [a.cardToken, a.status])).toEqual([[good, 'approved']]);
    expect(made[0]!.planReason).toMatch(/^other_card: lost_or_stolen on the card ending 9979/);
    // The order's view shows the card it was charged on, never a number.
    const view = await f.get(`/v1/orders/${id}`);
    expect(view.statusCode).toBe(200);
    expect(view.body).not.toContain('4111111111111111');
    expect(view.json()).toMatchObject({
      status: 'APPROVED', card: { last4: '9979' }, endedCards: [{ token: stolen, last4: '9979', reason: expect.stringMatching(/lost_or_stolen$/) }],
      attemptHistory: [{ card: { source: 'other_card', last4: '1111' } }],
    });
  });

  it('a payer\'s card that fails on the way is not charged again, nor is the first one', async () => {
    const stolen = await tokenize(STOLEN, 'payer-2');
    const other = await tokenize(OTHER_GOOD, 'payer-2');
    const lost = await tokenize(LOST, 'payer-2'); // the most recent: tried first
    const id = await handOver(stolen, '43', { id: 'payer-2' });
    const o = await settle(id);
    const made = await attemptsOf(id);
    // Each card once at most, the stolen one never; the order's attempts count across cards.
    expect(made.map((a) => a.cardToken)).not.toContain(stolen);
    expect(new Set(made.map((a) => a.cardToken)).size).toBe(made.length);
    expect(made[0]).toMatchObject({ cardToken: lost, status: 'declined', responseCode: '41' });
    expect(o.attemptCount).toBe(made.length);
    expect((o.endedCards as { token: string }[])[0]!.token).toBe(stolen);
    // After a decline the processor answered, the recorder hands the stop to the cascade too.
    expect(o).toMatchObject({ status: 'APPROVED', cardToken: stolen, credential: other, recoveredBy: 'other_card', attemptCount: 2 });
    expect(made.map((a) => [a.cardToken, a.status])).toEqual([[lost, 'declined'], [other, 'approved']]);
    expect((o.endedCards as { token: string }[]).map((e) => e.token)).toEqual([stolen, lost]);
  });

  it('the cards the order lists come first; a payer without another card ends the order', async () => {
    const stolen = await tokenize(STOLEN, 'payer-3');
    await tokenize(GOOD, 'payer-3');
    const listed = await tokenize(DEBIT); // no payer: only the order names it
    const id = await handOver(stolen, '43', { id: 'payer-3', otherCardTokens: [listed] });
    expect(await settle(id)).toMatchObject({ status: 'APPROVED', credential: listed, recoveredBy: 'other_card' });

    const alone = await tokenize(LOST, 'payer-4');
    const lonely = await handOver(alone, '41', { id: 'payer-4' });
    expect(await settle(lonely)).toMatchObject({ status: 'EXPIRED', cardToken: alone });
  });
});
