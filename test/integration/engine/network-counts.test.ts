// What the card networks count, end to end: orders come in through POST /v1/evaluate and a
// batch file with the original decline's Mastercard advice code and the merchant's earlier
// attempts, the real engine plans and runs them on a simulated clock, and the card's windows
// hold counting every authorization: rescued's attempts, each order's original decline and the
// merchant's own earlier tries (docs/engine.md, "What the card's windows count").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, inArray, min } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture, type ApiMerchant } from '../../helpers/api.ts';
import { DEFAULT_ENGINE_CONFIG } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, orders, transmits, webhookEvents } from '../../../src/db/schema.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { MAX_CARD_ORDERS, ordersOfCards } from '../../../src/db/queries/card-histories.ts';
import type { CardResolver } from '../../../src/intake/types.ts';
import type { Processor } from '../../../src/processors/types.ts';

const T0 = new Date('2026-11-28T12:00:00Z');
const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;
type Obj = Record<string, unknown>;

/** The issuer of the test: every attempt declined with the code the scenario sets. */
function decliningIssuer(answer: { code: string }): Processor {
  const declined = (ref: string) => ({ approved: false, responseCode: answer.code, processorRef: ref, replayed: false });
  return {
    name: 'sandbox',
    authorize: async (r) => declined(`decl-${r.idempotencyKey}`),
    refund: async (r) => declined(`refund-${r.idempotencyKey}`),
    void: async (r) => declined(`void-${r.idempotencyKey}`),
  };
}

/** Mastercard and Visa numbers of the sandbox's list, with what the request says of them. */
const MC = { number: '5555555555554444', pm: { cardBrand: 'MASTERCARD', cardBinNumber: '555555', cardLast4Digits: '4444' } };
const MC2 = { number: '2223003122003222', pm: { cardBrand: 'MASTERCARD', cardBinNumber: '222300', cardLast4Digits: '3222' } };
const VISA = { number: '4111111111111111', pm: { cardBrand: 'VISA', cardBinNumber: '411111', cardLast4Digits: '1111' } };
const VISA2 = { number: '4242424242424242', pm: { cardBrand: 'VISA', cardBinNumber: '424242', cardLast4Digits: '4242' } };

describe.each(DB_KINDS)('what the networks count, on %s', (kind) => {
  let f: ApiFixture;
  let engine: Engine;
  const clock = new ManualClock(T0);
  const issuer = { code: '05' };
  const db = () => f.t.tdb.database.db;
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-network-counts-'));

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
    engine = createEngine({ db: db(), processor: decliningIssuer(issuer), clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true });
    for (const d of ['inbound', 'outbound', 'archive']) mkdirSync(join(dataDir, d));
  });
  afterAll(async () => {
    await engine?.stop();
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An MIT evaluate on `card` declined now with `tx` (merged over the sample's transaction). */
  async function evaluate(card: typeof MC, tx: Obj, opts: { m?: ApiMerchant; expiresInMs?: number } = {}): Promise<string> {
    const m = opts.m ?? f.a;
    const token = await m.tokenOf(card.number);
    const expiryDateUtc = new Date(clock.now().getTime() + (opts.expiresInMs ?? 20 * D)).toISOString();
    const body = evaluateBody(token, { mit: true, top: { expiryDateUtc }, pm: card.pm, tx: { responseCodeSource: 'iso8583', responseCode: '05', timestampUtc: new Date(clock.now().getTime() - MIN).toISOString(), ...tx } });
    const res = await f.post('/v1/evaluate', body, m);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().orderSessionKey as string;
  }

  /** Runs the engine from one due moment to the next until nothing is open or `untilMs` is reached. */
  async function runUntil(untilMs: number): Promise<void> {
    for (let step = 0; step < 5000; step++) {
      while ((await engine.runOnce()) > 0);
      const [next] = await db().select({ at: min(orders.nextAttemptAt) }).from(orders).where(inArray(orders.status, ['SUBMITTED', 'PENDING']));
      const at = next?.at?.getTime();
      if (at === undefined || at > untilMs) break;
      if (at > clock.now().getTime()) clock.set(new Date(at));
    }
    if (clock.now().getTime() < untilMs) clock.set(new Date(untilMs));
    while ((await engine.runOnce()) > 0);
  }

  /** Every authorization on a card as the network sees it: originals, earlier tries, rescued's attempts. */
  async function authorizations(ids: string[]): Promise<number[]> {
    const rows = await db().select({ request: orders.request }).from(orders).where(inArray(orders.id, ids));
    const merchant = rows.flatMap((r) => {
      const tx = (r.request as { transaction: { timestampUtc: string; priorAttempts?: { timestampUtc: string }[] } }).transaction;
      return [Date.parse(tx.timestampUtc), ...(tx.priorAttempts ?? []).map((p) => Date.parse(p.timestampUtc))];
    });
    const ours = await db().select({ at: attempts.startedAt }).from(attempts).where(inArray(attempts.orderSessionKey, ids));
    return [...merchant, ...ours.map((a) => a.at.getTime())].sort((a, b) => a - b);
  }

  /** The most authorizations in any window of `windowMs` (each window ending at one of them). */
  const busiest = (times: number[], windowMs: number) => Math.max(...times.map((t) => times.filter((u) => u > t - windowMs && u <= t).length));

  it('the OpenAPI document describes both fields of the evaluate request', async () => {
    const doc = (await f.t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as unknown;
    // The transaction object of the evaluate body, wherever the document places it.
    const find = (node: unknown): Obj | undefined => {
      if (typeof node !== 'object' || node === null) return undefined;
      const props = (node as Obj).properties as Obj | undefined;
      if (props?.priorAttempts && props.merchantAdviceCode) return props;
      for (const v of Object.values(node)) {
        const found = find(v);
        if (found) return found;
      }
      return undefined;
    };
    const tx = find(doc);
    expect(tx?.merchantAdviceCode).toMatchObject({ type: 'string', format: 'advice-code' });
    expect(tx?.priorAttempts).toMatchObject({ type: 'array', maxItems: 50, items: { type: 'object', required: ['timestampUtc', 'responseCode'] } });
  });

  it('three orders on one Mastercard in 30 days, each with a soft original decline: never more than 35 authorizations in 30 days', async () => {
    issuer.code = '05';
    const ids = [await evaluate(MC, {}, { expiresInMs: 28 * D })];
    await runUntil(T0.getTime() + D);
    ids.push(await evaluate(MC, {}, { expiresInMs: 27 * D }));
    await runUntil(T0.getTime() + 2 * D);
    ids.push(await evaluate(MC, {}, { expiresInMs: 26 * D }));
    await runUntil(T0.getTime() + 29 * D);
    const final = await db().select().from(orders).where(inArray(orders.id, ids));
    expect(final.map((o) => o.status)).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED']);
    const times = await authorizations(ids);
    // Fifteen attempts per order would make 45 plus 3 originals: the 30-day cap holds at 35,
    // originals included, and the orders that could not go on say why.
    expect(busiest(times, 30 * D)).toBe(35);
    expect(times.length - 3).toBe(32);
    expect(final.map((o) => o.statusReason)).toContain('mastercard_attempt_cap');
    expect(busiest(times, D)).toBeLessThanOrEqual(20);
  });

  it('three orders with the merchant\'s earlier tries and a soft original on one Mastercard: never more than 20 declines in 24 hours', async () => {
    clock.set(new Date(T0.getTime() + 40 * D));
    issuer.code = '91'; // issuer unavailable: retried within minutes and hours
    const now = clock.now().getTime();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const priorAttempts = Array.from({ length: 4 }, (_, j) => ({ timestampUtc: new Date(now - 6 * H + (i * 4 + j) * 10 * MIN).toISOString(), responseCode: '91' }));
      ids.push(await evaluate(MC2, { responseCode: '91', priorAttempts }, { expiresInMs: 3 * D }));
    }
    await runUntil(now + 3 * D);
    const times = await authorizations(ids);
    // 15 before the hand-over; backoffs of 15 min, 1 h, 4 h, 12 h would add 12 more in the day.
    expect(times.filter((t) => t < now)).toHaveLength(15);
    expect(busiest(times, D)).toBe(20);
    expect(times.filter((t) => t >= now && t < now - 6 * H + D).length).toBeLessThanOrEqual(5);
  });

  it('MAC 03 or 21 on the original decline ends the order at once: EXPIRED, no attempt, the event, the reason', async () => {
    clock.set(new Date(T0.getTime() + 80 * D));
    for (const [sent, mac] of [['21', '21'], [3, '03']] as const) {
      const id = await evaluate(MC, { merchantAdviceCode: sent }, { m: f.b });
      await engine.runOnce();
      const [o] = await db().select().from(orders).where(eq(orders.id, id));
      expect(o).toMatchObject({ status: 'EXPIRED', attemptCount: 0, declineAdvice: mac, statusReason: `mastercard_advice_do_not_retry: MAC ${mac} on the original decline` });
      expect(await db().select().from(attempts).where(eq(attempts.orderSessionKey, id))).toEqual([]);
      const events = await db().select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, id));
      expect(events.map((e) => e.type)).toEqual(['order.expired']);
      const shown = await f.get(`/v1/orders/${id}`, f.b);
      expect(shown.json()).toMatchObject({ status: 'EXPIRED' });
      expect(JSON.stringify(shown.json())).toContain(`MAC ${mac} on the original decline`);
    }
  });

  it('a CIT with MAC 03 or 21 on the original decline is declined without an attempt; without it the soft decline is tried', async () => {
    const token = await f.b.tokenOf(MC.number);
    for (const mac of ['03', '21', undefined]) {
      const res = await f.post('/v1/evaluate', evaluateBody(token, { pm: MC.pm, tx: { responseCodeSource: 'iso8583', responseCode: '05', merchantAdviceCode: mac } }), f.b);
      expect(res.statusCode, res.body).toBe(200);
      const tried = await db().select().from(attempts).where(eq(attempts.orderSessionKey, res.json().orderSessionKey as string));
      if (mac) {
        expect(res.json(), mac).toMatchObject({ status: 'DECLINED' });
        expect(tried, mac).toEqual([]);
      } else {
        expect(res.json()).toMatchObject({ status: 'APPROVED' });
        expect(tried).toHaveLength(1);
      }
    }
  });

  it('MAC 24–30 on the original decline: the first attempt not before the delay after the decline\'s timestampUtc', async () => {
    clock.set(new Date(T0.getTime() + 120 * D));
    const now = clock.now().getTime();
    const cases = [['30', 10 * D, 2 * D], ['27', 4 * D, 30 * MIN], ['25', D, 20 * H]] as const;
    const ids: string[] = [];
    for (const [mac, , ago] of cases) ids.push(await evaluate(MC, { merchantAdviceCode: mac, timestampUtc: new Date(now - ago).toISOString() }, { m: f.b, expiresInMs: 25 * D }));
    await engine.runOnce();
    for (const [i, [mac, delay, ago]] of cases.entries()) {
      const [o] = await db().select().from(orders).where(eq(orders.id, ids[i]!));
      expect(o!.status, mac).toBe('PENDING');
      expect(o!.nextAttemptAt!.getTime(), mac).toBeGreaterThanOrEqual(now - ago + delay);
    }
    await runUntil(now + 11 * D);
    for (const [i, [mac, delay, ago]] of cases.entries()) {
      const [first] = await db().select().from(attempts).where(eq(attempts.orderSessionKey, ids[i]!)).orderBy(asc(attempts.attemptNo)).limit(1);
      expect(first!.startedAt.getTime(), mac).toBeGreaterThanOrEqual(now - ago + delay);
    }
  });

  it('counts the merchant\'s earlier tries in the windows, and a MAC 21 among them ends the order', async () => {
    clock.set(new Date(T0.getTime() + 160 * D));
    issuer.code = '05';
    const now = clock.now().getTime();
    // 19 earlier tries in the last 20 hours and the original: 20 declines in 24 hours already.
    const tries = Array.from({ length: 19 }, (_, j) => ({ timestampUtc: new Date(now - 20 * H + j * H).toISOString(), responseCode: '05' }));
    const held = await evaluate(MC2, { responseCode: '91', priorAttempts: tries }, { m: f.b });
    // A stop-recurring advice on one of them, five days ago.
    const stopped = await evaluate(MC, { priorAttempts: [{ timestampUtc: new Date(now - 5 * D).toISOString(), responseCode: '05', merchantAdviceCode: '21' }] }, { m: f.b });
    await engine.runOnce();
    const [h] = await db().select().from(orders).where(eq(orders.id, held));
    expect(h!.status).toBe('PENDING');
    // An issuer-unavailable decline would be retried in 15 minutes; the window frees 24 h after the oldest try.
    expect(h!.nextAttemptAt!.getTime()).toBeGreaterThan(now - 20 * H + D);
    const [s] = await db().select().from(orders).where(eq(orders.id, stopped));
    expect(s).toMatchObject({ status: 'EXPIRED', attemptCount: 0 });
    expect(s!.statusReason).toBe(`mastercard_advice_do_not_retry: card received MAC 21 on the merchant's earlier attempt of ${new Date(now - 5 * D).toISOString()}`);
  });

  it('Visa counts per credential: earlier tries on one card hold it, another credential goes on', async () => {
    clock.set(new Date(T0.getTime() + 200 * D));
    const now = clock.now().getTime();
    // 20 earlier tries and the original: 20 reattempts (the first try is not one), Visa's limit today.
    const tries = Array.from({ length: 20 }, (_, j) => ({ timestampUtc: new Date(now - 10 * D + j * 10 * H).toISOString(), responseCode: '05' }));
    const full = await evaluate(VISA, { priorAttempts: tries });
    const other = await evaluate(VISA2, {});
    await engine.runOnce();
    const [a] = await db().select().from(orders).where(eq(orders.id, full));
    const [b] = await db().select().from(orders).where(eq(orders.id, other));
    // The window frees 30 days after the second try, past the order's deadline: it stops on the cap.
    expect(a).toMatchObject({ status: 'EXPIRED', statusReason: 'visa_reattempt_cap', attemptCount: 0 });
    expect(b!.status).toBe('PENDING');
    expect(b!.nextAttemptAt!.getTime()).toBeLessThan(now + 3 * D);
  });

  it('counts the payments the merchant made itself and sent to /v1/transmit, named by token or by full number', async () => {
    clock.set(new Date(T0.getTime() + 400 * D));
    const now = clock.now().getTime();
    // The merchant recovered a payment itself after 20 declined tries in the last ten days, then
    // transmitted it with those tries: with the approval, 20 reattempts on the card.
    const tries = Array.from({ length: 20 }, (_, j) => ({ timestampUtc: new Date(now - 10 * D + j * 10 * H).toISOString(), responseCode: '05' }));
    const own = (orderId: string, cardNumber: string, token: boolean) => ({
      orderId, isMIT: true, paymentMethod: { cardNumber, token, cardBrand: 'VISA' }, payer: { email: 'payer@example.com' },
      transaction: { amount: 10, currency: 'USD', responseCode: '00', responseStatus: 'Approved', timestampUtc: new Date(now - H).toISOString(), priorAttempts: tries },
    });
    const VISA3 = { number: '4000056655665556', pm: { cardBrand: 'VISA', cardBinNumber: '400005', cardLast4Digits: '5556' } };
    const VISA4 = { number: '4000008260000000', pm: { cardBrand: 'VISA', cardBinNumber: '400000', cardLast4Digits: '0000' } };
    // By token; and by full number for a card the vault does not hold yet (its fingerprint matches the later order's card).
    for (const body of [own('OWN-1', await f.a.tokenOf(VISA3.number), true), own('OWN-2', VISA4.number, false)]) {
      const res = await f.post('/v1/transmit', body);
      expect(res.statusCode, res.body).toBe(202);
    }
    await f.t.api.transmits.flush();
    const stored = await db().select().from(transmits).where(inArray(transmits.orderId, ['OWN-1', 'OWN-2']));
    expect(stored.map((r) => [r.orderId, r.cardToken === null, r.cardFingerprint === null, (r.priorAttempts as unknown[]).length]).sort()).toEqual([['OWN-1', false, true, 20], ['OWN-2', true, false, 20]]);
    expect(JSON.stringify(stored)).not.toContain(VISA4.number);
    const held = [await evaluate(VISA3, {}), await evaluate(VISA4, {})];
    const free = await evaluate(VISA2, {}, { expiresInMs: 20 * D });
    await engine.runOnce();
    const rows = await db().select().from(orders).where(inArray(orders.id, [...held, free]));
    for (const id of held) expect(rows.find((o) => o.id === id)).toMatchObject({ status: 'EXPIRED', statusReason: 'visa_reattempt_cap', attemptCount: 0 });
    expect(rows.find((o) => o.id === free)!.status).toBe('PENDING');
  });

  it('Visa counts CIT and MIT apart from 25 April 2026, together before: evaluate\'s real-time CIT attempts against a later MIT order', async () => {
    const declining = { number: '4000000000000002', pm: { cardBrand: 'VISA', cardBinNumber: '400000', cardLast4Digits: '0002' } };
    const token = await f.a.tokenOf(declining.number);
    // Before: 15 CIT reattempts fill the one counter. After: 20 (Visa's whole allowance) leave the MIT counter empty.
    for (const [at, cits, held] of [['2026-03-02T12:00:00Z', 15, true], [new Date(T0.getTime() + 320 * D).toISOString(), 20, false]] as const) {
      clock.set(new Date(at));
      // Customer-initiated evaluates, each declined by the issuer once more in real time: one CIT reattempt each.
      for (let i = 0; i < cits; i++) {
        const res = await f.post('/v1/evaluate', evaluateBody(token, { pm: declining.pm, tx: { responseCodeSource: 'iso8583', responseCode: '05', timestampUtc: new Date(clock.now().getTime() - MIN).toISOString() } }));
        expect(res.json(), at).toMatchObject({ status: 'DECLINED' });
        clock.advance(MIN);
      }
      const id = await evaluate(declining, {}, { expiresInMs: 10 * D });
      await engine.runOnce();
      const [o] = await db().select().from(orders).where(eq(orders.id, id));
      // Before: the MIT order would wait past its deadline. After: the usual spacing.
      if (held) expect(o, at).toMatchObject({ status: 'EXPIRED', statusReason: 'visa_reattempt_cap' });
      else expect(o!.nextAttemptAt!.getTime(), at).toBeLessThan(clock.now().getTime() + 3 * D);
    }
  });

  it('a batch file carries the advice code and the earlier tries to the order, and the engine honours them', async () => {
    clock.set(new Date(T0.getTime() + 240 * D));
    const now = clock.now();
    const token = await f.a.tokenOf(MC.number);
    const entry = (seq: number, tx: Obj) => ({
      ...evaluateBody(token, { mit: true, pm: MC.pm, tx: { responseCodeSource: 'iso8583', responseCode: '05', timestampUtc: new Date(now.getTime() - H).toISOString(), ...tx } }),
      mid: f.a.mid, siteId: f.a.siteId, sequenceNumber: seq, expiryDateUtc: new Date(now.getTime() + 10 * D).toISOString(),
    });
    const prior = { TimestampUtc: new Date(now.getTime() - 3 * H).toUTCString(), responseCode: '05', MerchantAdviceCode: null };
    const entries = [entry(1, { MerchantAdviceCode: '21' }), entry(2, { priorAttempts: [prior] })];
    const name = 'network-counts.json';
    const path = join(dataDir, 'inbound', name);
    writeFileSync(path, JSON.stringify({ mid: f.a.mid, authorizationToken: f.a.bearer, requests: entries }));
    const tokensAsTheyAre: CardResolver = { resolve: async (_tx, _m, methods) => methods.map((m) => ({ token: m.cardNumber })) };
    const deps = { db: db(), tokens: f.t.tokens, cards: tokensAsTheyAre, mode: 'sandbox' as const, log: silentLog, archiveDir: join(dataDir, 'archive'), chunkSize: 2, now: () => clock.now() };
    const res = await ingestFile(deps, { merchantId: f.a.merchantId, mid: f.a.mid, path, name, outboundDir: join(dataDir, 'outbound') });
    expect(res.counts).toMatchObject({ accepted: 2, rejected: 0 });
    const stored = await db().select().from(orders).where(inArray(orders.orderId, entries.map((e) => (e as Obj).orderId as string))).orderBy(asc(orders.sequenceNumber));
    expect(stored.map((o) => [o.declineAdvice, o.declinedAt?.toISOString(), o.priorAttempts])).toEqual([
      ['21', new Date(now.getTime() - H).toISOString(), null],
      [null, new Date(now.getTime() - H).toISOString(), [[new Date(Math.floor((now.getTime() - 3 * H) / 1000) * 1000).toISOString(), '05', null]]],
    ]);
    await engine.runOnce();
    const planned = await db().select().from(orders).where(inArray(orders.id, stored.map((o) => o.id))).orderBy(asc(orders.sequenceNumber));
    expect(planned.map((o) => [o.status, o.statusReason])).toEqual([
      ['EXPIRED', 'mastercard_advice_do_not_retry: MAC 21 on the original decline'],
      ['PENDING', null],
    ]);
  });

  it(`reads at most the newest ${MAX_CARD_ORDERS} orders of a card, and always the orders being planned`, async () => {
    clock.set(new Date(T0.getTime() + 280 * D));
    const ids: string[] = [];
    for (let i = 0; i < MAX_CARD_ORDERS + 3; i++) {
      ids.push(await evaluate(VISA2, {}, { m: f.b }));
      clock.advance(MIN);
    }
    const card = { merchantId: f.b.merchantId, cardToken: await f.b.tokenOf(VISA2.number) };
    const since = new Date(clock.now().getTime() - 30 * D);
    const newest = await ordersOfCards(db(), [card], since);
    expect(newest.map((o) => o.id).sort()).toEqual(ids.slice(3).sort());
    const withOldest = await ordersOfCards(db(), [card], since, [ids[0]!, ids.at(-1)!]);
    expect(withOldest.map((o) => o.id).sort()).toEqual([ids[0]!, ...ids.slice(3)].sort());
  });
});
