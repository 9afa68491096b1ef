// A batch holding every sandbox test card, run through a simulated month: the clock jumps
// from one due attempt to the next, the engine and the sweeps run at each step, and at the
// end every order is final with the status, attempt count and results-file record its card
// and the network rules call for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { asc, eq, inArray, min } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { DEFAULT_ENGINE_CONFIG, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { attempts, batches, orders, webhookEvents } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

const START = new Date('2026-03-02T00:00:00Z'); // a Monday
const EXPIRY = new Date('2026-04-01T00:00:00Z');
const DAY = 86_400_000;

/**
 * Final status, attempts and reason per card (last four digits), as the card and the rules
 * call for. Original decline: the card's own code, 05 (do not honor) for cards that approve.
 */
const EXPECTED: Record<string, [status: string, attempts: number, reason: string]> = {
  // approve: 05 is a generic soft decline, retried about a day later and approved.
  '1111': ['APPROVED', 1, 'approved'], '4242': ['APPROVED', 1, 'approved'], '5556': ['APPROVED', 1, 'approved'], '0000': ['APPROVED', 1, 'approved'],
  '4444': ['APPROVED', 1, 'approved'], '3222': ['APPROVED', 1, 'approved'], '0005': ['APPROVED', 1, 'approved'], '1117': ['APPROVED', 1, 'approved'],
  '0505': ['APPROVED', 1, 'approved'], '1667': ['APPROVED', 1, 'approved'], '0010': ['APPROVED', 1, 'approved'],
  // decline, never rescuable: stopped at once, no attempt.
  '9987': ['EXPIRED', 0, 'visa_category_1: code 41'], '9979': ['EXPIRED', 0, 'visa_category_1: code 43'],
  '0069': ['EXPIRED', 0, 'card_data_required_mit: expired_card'], '1881': ['EXPIRED', 0, 'visa_category_1: code 14'],
  '0019': ['EXPIRED', 0, 'hard_decline: suspected_fraud'], '0127': ['EXPIRED', 0, 'card_data_required_mit: cvv_failure'],
  '3184': ['EXPIRED', 0, 'authentication_required_mit'], '0341': ['EXPIRED', 0, 'visa_category_1: code R1'],
  '5100': ['EXPIRED', 0, 'hard_decline: closed_account'],
  // decline, soft: retried until the order's cap (15, Visa's allowance per card in 30 days) or the deadline.
  '0002': ['EXPIRED', 15, 'order_attempt_cap: 15 attempts'], '8431': ['EXPIRED', 15, 'order_attempt_cap: 15 attempts'],
  '9424': ['EXPIRED', 15, 'order_attempt_cap: 15 attempts'], '0119': ['EXPIRED', 15, 'order_attempt_cap: 15 attempts'],
  // 51 on every attempt: one try per payday morning (Mar 6, 13, 15, 20, 27, 31), one last try
  // just before the deadline (no morning is left), then the deadline.
  '9995': ['EXPIRED', 7, 'expiry_reached'],
  // MAC 03 on the first retry: no further attempt.
  '8210': ['EXPIRED', 1, 'mastercard_advice_do_not_retry: MAC 03'],
  // approve_after 2; payday (first retry is Friday Mar 6); outage of 120 min (15 min, +1 h, +4 h).
  '0077': ['APPROVED', 3, 'approved'], '0093': ['APPROVED', 1, 'approved'], '0051': ['APPROVED', 3, 'approved'],
  // MAC 25 on the first payday retry, approved on the next payday at least 24 h later.
  '5454': ['APPROVED', 2, 'approved'],
  // challenge cards: an MIT cannot be authenticated or have its CVV re-entered.
  '3220': ['EXPIRED', 1, 'authentication_required_mit'], '0101': ['EXPIRED', 1, 'card_data_required_mit: cvv_failure'],
};

describe.each(DB_KINDS)('a month of retries on %s', (kind) => {
  let f: EngineFixture;
  let outbound: string;
  const cards = sandboxTestCards().cards;
  let ids: string[] = [];

  beforeAll(async () => {
    f = await engineFixture(kind);
    outbound = mkdtempSync(join(tmpdir(), 'rescued-results-'));
    const clock = new ManualClock(START);
    const batchId = randomUUID();
    await f.db.insert(batches).values({
      id: batchId, merchantId: f.merchantId, fileName: 'month.json', sha256: 'x'.repeat(64), status: 'accepted',
      entryCount: cards.length, acceptedCount: cards.length, rejectedCount: 0, receivedAt: START,
    });
    const specs = [];
    for (const [i, card] of cards.entries()) {
      specs.push({ card, token: await f.tokenOf(card.number), merchantId: f.merchantId, createdAt: START, expiresAt: EXPIRY, batchId, sequenceNumber: i + 1 });
    }
    ids = await insertTestOrders(f.db, specs);
    const processor = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
    const engine = createEngine({ db: f.db, processor, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true, outboundFor: () => outbound });
    // Jump from one due moment to the next until nothing is open or the month is over.
    for (let step = 0; step < 2000; step++) {
      while ((await engine.runOnce()) > 0);
      await engine.sweepOnce();
      const [next] = await f.db.select({ at: min(orders.nextAttemptAt) }).from(orders).where(inArray(orders.status, ['SUBMITTED', 'PENDING']));
      if (!next?.at) break;
      clock.set(Math.max(clock.now().getTime(), next.at.getTime()));
      if (clock.now().getTime() > START.getTime() + 31 * DAY) break;
    }
    clock.set(EXPIRY.getTime() + 60_000);
    await engine.runOnce();
    await engine.sweepOnce();
  }, 120_000);
  afterAll(() => f.close());

  it('ends every order final, with the attempts its card calls for', async () => {
    const rows = await f.db.select().from(orders).where(eq(orders.merchantId, f.merchantId)).orderBy(asc(orders.sequenceNumber));
    const got = Object.fromEntries(rows.map((r) => [r.cardLast4 ?? '', [r.status, r.attemptCount, r.statusReason ?? '']]));
    expect(rows).toHaveLength(cards.length);
    expect(Object.keys(EXPECTED)).toHaveLength(cards.length);
    expect(got).toEqual(EXPECTED);
    for (const r of rows.filter((o) => o.status === 'APPROVED')) expect(r.confirmationId).toMatch(/^sbx_/);
  });

  it('records every attempt with its key, times before the deadline, and one event per final order', async () => {
    const all = await f.db.select().from(attempts).where(inArray(attempts.orderSessionKey, ids));
    const byOrder = new Map<string, typeof all>();
    for (const a of all) byOrder.set(a.orderSessionKey, [...(byOrder.get(a.orderSessionKey) ?? []), a]);
    const rows = await f.db.select().from(orders).where(inArray(orders.id, ids));
    for (const o of rows) {
      const own = (byOrder.get(o.id) ?? []).sort((a, b) => a.attemptNo - b.attemptNo);
      expect(own.map((a) => a.attemptNo)).toEqual(own.map((_, i) => i + 1));
      for (const a of own) {
        expect(a.idempotencyKey).toBe(`${o.id}:${a.attemptNo}`);
        expect(a.startedAt.getTime()).toBeLessThan(EXPIRY.getTime());
        expect(a.status).not.toBe('in_flight');
        // With learned timing (on by default) a retry says whether the prior or the evidence placed it.
        expect(a.planReason).toMatch(/^((prior: )?(payday_morning|daily_spacing|last_chance_before_expiry)|temporary_backoff|learned(?: \(all merchants\))?: .+)$/);
        expect(a.latencyMs).toBeGreaterThanOrEqual(0);
      }
      if (o.status === 'APPROVED') expect(own.at(-1)).toMatchObject({ status: 'approved', processorRef: o.confirmationId });
    }
    // Payday retries land on a payday morning (06:00–09:00 UTC for these payers).
    const payday = all.filter((a) => a.planReason === 'prior: payday_morning');
    expect(payday.length).toBeGreaterThan(0);
    for (const a of payday) expect(a.startedAt.getUTCHours()).toBeGreaterThanOrEqual(6);
    const events = await f.db.select().from(webhookEvents).where(inArray(webhookEvents.orderSessionKey, ids));
    expect(events.filter((e) => e.type === 'order.completed')).toHaveLength(rows.filter((o) => o.status === 'APPROVED').length);
    expect(events.filter((e) => e.type === 'order.expired')).toHaveLength(rows.filter((o) => o.status === 'EXPIRED').length);
  });

  it('writes the results file once every order is final, in sequence order, without card numbers', async () => {
    const text = readFileSync(join(outbound, 'month.json.results.json'), 'utf8');
    const file = JSON.parse(text) as { results: Array<Record<string, unknown>>; total: number; counts: Record<string, number>; file: string };
    expect(file.file).toBe('month.json');
    expect(file.total).toBe(cards.length);
    expect(file.results.map((r) => r.sequenceNumber)).toEqual(cards.map((_, i) => i + 1));
    const rows = await f.db.select().from(orders).where(inArray(orders.id, ids)).orderBy(asc(orders.sequenceNumber));
    expect(file.results).toEqual(
      rows.map((o) => ({
        sequenceNumber: o.sequenceNumber, orderId: o.orderId, orderSessionKey: o.id, status: o.status, reason: o.statusReason,
        attempts: o.attemptCount, finishedAt: o.finishedAt!.toISOString(), confirmationId: o.confirmationId,
        // An approval says what recovered it: here every one a retry of the order's own card.
        ...(o.status === 'APPROVED' ? { recoveredBy: 'retry' } : {}),
        // A card that must change (lost, stolen) waited for an updated card that never came.
        ...(o.awaitingCard ? { awaitedUpdatedCard: { since: (o.awaitingCard as { since: string }).since, decline: (o.awaitingCard as { decline: unknown }).decline } } : {}),
      })),
    );
    expect(file.counts).toEqual({ APPROVED: 15, EXPIRED: 17 });
    for (const card of cards) expect(text).not.toContain(card.number);
    const [batch] = await f.db.select().from(batches).where(eq(batches.fileName, 'month.json'));
    expect(batch?.resultsWrittenAt).toBeInstanceOf(Date);
  });
});
