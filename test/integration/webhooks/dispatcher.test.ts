// The dispatcher against a real local receiver, on PGlite and PostgreSQL: retries until a
// 2xx, one webhook-id across every attempt, 410 and `enable`, dead letters and replay,
// Retry-After, the per-endpoint cap across two dispatchers, expired leases, and a rotated
// secret. The receiver verifies every signature with the published standardwebhooks package.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { DB_KINDS, freshDatabase, silentLog, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { orderWithEvent, query, startReceiver, type Receiver } from '../../helpers/webhooks.ts';
import { waitFor } from '../../helpers/wait.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createMerchantService, type MerchantService } from '../../../src/merchants/service.ts';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../../../src/webhooks/dispatcher.ts';
import { createWebhookOperations } from '../../../src/webhooks/operations.ts';
import { claimWebhookDeliveries } from '../../../src/db/queries/claim-webhook-deliveries.ts';
import { registry } from '../../../src/metrics.ts';

const FAST = [20, 20, 20, 20, 20, 20, 20];

describe.each(DB_KINDS)('webhook dispatcher on %s', (kind) => {
  let t: TestDatabase;
  let merchants: MerchantService;
  const keyRing = keyRingFrom({ v1: key32() }, 'v1');
  const running: Dispatcher[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await freshDatabase(kind);
    merchants = createMerchantService({ db: t.database.db, vault: keyRing, mode: 'sandbox' });
  });
  afterEach(async () => {
    for (const d of running.splice(0)) await d.stop();
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(async () => t.dispose());

  const db = () => t.database.db;

  /**
   * A clock that counts its reads. A dispatcher reads it at the start of each claim round (and
   * at each POST): two more reads than at some moment mean a whole claim round ran after it.
   */
  function countingClock() {
    let reads = 0;
    return { clock: { now: () => (reads++, new Date()) }, reads: () => reads };
  }
  const aRoundAfter = (c: ReturnType<typeof countingClock>, what: string) => {
    const from = c.reads();
    return waitFor(() => c.reads() >= from + 2, { what: `a whole claim round after ${what}` });
  };

  function dispatcher(opts: Partial<DispatcherOptions> = {}): Dispatcher {
    const d = createDispatcher({
      db: db(), keyRing, log: silentLog, mode: 'sandbox', timeoutMs: 2_000, maxInFlight: 16, perEndpointConcurrency: 4,
      leaseSeconds: 30, pollIntervalMs: 20, retryDelaysMs: FAST, random: () => 0.5, ...opts,
    });
    running.push(d);
    d.start();
    return d;
  }

  async function merchantWithReceiver(answer: Parameters<typeof startReceiver>[0]) {
    const receiver = await startReceiver(answer);
    receivers.push(receiver);
    const creds = await merchants.add({ name: `M ${Math.random()}` });
    await merchants.setWebhook(creds.mid, receiver.url);
    const merchantId = (await merchants.byMid(creds.mid)).id;
    return { receiver, creds, merchantId };
  }

  const delivery = async (webhookId: string) => (await query(db(), sql`select * from webhook_deliveries where event_id = ${webhookId} order by created_at`));
  const attempts = async (deliveryId: unknown) => query(db(), sql`select * from webhook_attempts where delivery_id = ${deliveryId} order by attempt_no`);

  it('a receiver failing three times then succeeding: one accepted delivery, four attempts, one webhook-id', async () => {
    const { receiver, creds, merchantId } = await merchantWithReceiver((n) => (n <= 3 ? 500 : 200));
    const webhookId = await orderWithEvent(db(), merchantId);
    dispatcher();
    const [d] = await waitFor(async () => ((await delivery(webhookId))[0]?.status === 'delivered' ? delivery(webhookId) : undefined), { what: 'delivered' });
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 4, last_status_code: 200, is_resent: false });
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([webhookId]));
    for (const r of receiver.received) {
      const body = new Webhook(creds.webhookSecret).verify(r.body, r.headers as Record<string, string>);
      expect(body).toMatchObject({ Event: 'ORDER COMPLETE', EventData: { type: 'order.completed', status: 'APPROVED', amount: 19.99, currency: 'USD', attempts: 3 }, ConfirmationId: 'conf-1', IsTestMode: true, IsResent: false });
    }
    const rows = await attempts(d!.id);
    expect(rows.map((a) => [a.attempt_no, a.status_code, a.error])).toEqual([[1, 500, null], [2, 500, null], [3, 500, null], [4, 200, null]]);
    for (const a of rows) expect(a.latency_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(rows)).not.toContain(creds.webhookSecret.slice(6));
    expect(await registry.getSingleMetricAsString('rescued_webhook_deliveries_total')).toMatch(/result="delivered"\} [1-9]/);
  });

  it('410 disables the endpoint; deliveries wait, also new ones, until enable', async () => {
    let gone = true;
    const { receiver, creds, merchantId } = await merchantWithReceiver(() => (gone ? 410 : 204));
    const first = await orderWithEvent(db(), merchantId);
    const counted = countingClock();
    dispatcher({ clock: counted.clock });
    await waitFor(async () => (await merchants.show(creds.mid)).webhook?.enabled === false, { what: 'endpoint disabled' });
    const second = await orderWithEvent(db(), merchantId, 'order.expired');
    await aRoundAfter(counted, 'the second event');
    expect(receiver.received).toHaveLength(1);
    const failed = await createWebhookOperations(db()).list({ failed: true, mid: creds.mid });
    expect(failed).toEqual([expect.objectContaining({ webhookId: first, status: 'pending', attempts: 1, lastStatusCode: 410, endpointEnabled: false })]);
    expect((await delivery(second))[0]).toMatchObject({ status: 'pending', attempt_count: 0 });
    gone = false;
    const enabled = await createWebhookOperations(db()).enable(creds.mid);
    expect(enabled).toMatchObject({ mid: creds.mid, waiting: 2 });
    await waitFor(async () => (await delivery(first))[0]?.status === 'delivered' && (await delivery(second))[0]?.status === 'delivered', { what: 'both delivered' });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([first, expect.any(String), expect.any(String)]);
    expect(new Set(receiver.received.slice(1).map((r) => r.headers['webhook-id']))).toEqual(new Set([first, second]));
  });

  it('after the last retry the delivery is dead; replay sends the same webhook-id with IsResent: true', async () => {
    let up = false;
    const { receiver, creds, merchantId } = await merchantWithReceiver(() => (up ? 200 : 503));
    const webhookId = await orderWithEvent(db(), merchantId);
    dispatcher();
    const [dead] = await waitFor(async () => ((await delivery(webhookId))[0]?.status === 'dead' ? delivery(webhookId) : undefined), { what: 'dead' });
    expect(dead).toMatchObject({ attempt_count: 8, last_status_code: 503 });
    expect(dead!.finished_at).not.toBeNull();
    expect(receiver.received).toHaveLength(8);
    const ops = createWebhookOperations(db());
    expect((await ops.list({ failed: true, mid: creds.mid })).map((d) => d.status)).toEqual(['dead']);
    up = true;
    const replay = await ops.replay({ id: webhookId });
    expect(replay).toEqual({ events: 1, replayed: [{ deliveryId: expect.any(String), webhookId }] });
    await waitFor(async () => (await delivery(webhookId))[1]?.status === 'delivered', { what: 'replay delivered' });
    const last = receiver.received.at(-1)!;
    expect(last.headers['webhook-id']).toBe(webhookId);
    expect(new Webhook(creds.webhookSecret).verify(last.body, last.headers as Record<string, string>)).toMatchObject({ IsResent: true });
    // By delivery id too, and every event since a time (only this merchant's).
    expect((await ops.replay({ id: replay.replayed[0]!.deliveryId })).replayed).toHaveLength(1);
    expect((await ops.replay({ since: '1h', mid: creds.mid })).replayed).toEqual([{ deliveryId: expect.any(String), webhookId }]);
    await waitFor(async () => {
      const all = await delivery(webhookId);
      return (all.length === 4 && all.slice(1).every((d) => d.status === 'delivered' && d.is_resent === true)) || undefined;
    }, { what: 'all replays delivered' });
    expect(receiver.received.slice(-3).map((r) => JSON.parse(r.body).IsResent)).toEqual([true, true, true]);
    await expect(ops.replay({ id: 'msg_00000000000000000000000000000000' })).rejects.toMatchObject({ code: 'ERR_WEBHOOK_NOT_FOUND' });
    await expect(ops.replay({ id: 'nonsense' })).rejects.toMatchObject({ code: 'ERR_WEBHOOK_INVALID_INPUT' });
  });

  it('429 and 503 honour Retry-After instead of the schedule', async () => {
    const { receiver, merchantId } = await merchantWithReceiver((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '0' } } : n === 2 ? { status: 503, headers: { 'retry-after': new Date(Date.now() - 1000).toUTCString() } } : 200));
    const webhookId = await orderWithEvent(db(), merchantId);
    // The schedule alone would wait an hour after each failure.
    dispatcher({ retryDelaysMs: Array(7).fill(3_600_000) });
    await waitFor(async () => (await delivery(webhookId))[0]?.status === 'delivered', { what: 'delivered after Retry-After' });
    expect(receiver.received).toHaveLength(3);
  });

  it('holds the per-endpoint cap across two dispatchers, and delivers everything', async () => {
    let release!: () => void;
    const gate = new Promise((r) => (release = () => r(undefined)));
    const { receiver, merchantId } = await merchantWithReceiver(() => ({ status: 200, hold: gate }));
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await orderWithEvent(db(), merchantId));
    const clocks = [countingClock(), countingClock()];
    // The held calls are not given up while the test looks (a 2 s timeout and a retry would
    // put more than three in flight at the receiver on a slow moment).
    for (const c of clocks) dispatcher({ perEndpointConcurrency: 3, clock: c.clock, timeoutMs: 120_000 });
    await waitFor(() => receiver.inFlight() === 3, { what: 'three in flight' });
    // Both dispatchers keep claiming; after a whole round of each, none has claimed a fourth.
    await Promise.all(clocks.map((c, i) => aRoundAfter(c, `three in flight (dispatcher ${i + 1})`)));
    const leased = sql`select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.merchant_id = ${merchantId} and d.lease_owner is not null`;
    expect((await query(db(), leased))[0]!.n).toBe(3);
    expect(receiver.inFlight()).toBe(3);
    release();
    await waitFor(async () => (await query(db(), sql`select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.merchant_id = ${merchantId} and d.status = 'delivered'`))[0]!.n === 10, { what: 'ten delivered' });
    expect(receiver.maxInFlight()).toBe(3);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
  });

  it('a delivery whose lease expired (its dispatcher died) is delivered by another', async () => {
    const { receiver, merchantId } = await merchantWithReceiver(() => 200);
    const webhookId = await orderWithEvent(db(), merchantId);
    const now = new Date();
    // Claimed by a dispatcher that vanished, its lease already run out (as a second ago).
    const claimed = await claimWebhookDeliveries(db(), { owner: 'vanished', now, leaseUntil: new Date(now.getTime() - 1000), limit: 100, perEndpoint: 4 });
    expect(claimed.map((c) => c.eventId)).toContain(webhookId);
    dispatcher({ leaseSeconds: 5 });
    await waitFor(async () => (await delivery(webhookId))[0]?.status === 'delivered', { what: 'delivered after the lease' });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toContain(webhookId);
    expect((await delivery(webhookId))[0]).toMatchObject({ attempt_count: 1, lease_owner: null });
  });

  it('after rotate-secret, deliveries verify with the old and with the new secret', async () => {
    const { receiver, creds, merchantId } = await merchantWithReceiver(() => 200);
    const rotated = await merchants.rotateWebhookSecret(creds.mid);
    expect(rotated.previousValidUntil.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const webhookId = await orderWithEvent(db(), merchantId);
    dispatcher();
    await waitFor(async () => (await delivery(webhookId))[0]?.status === 'delivered', { what: 'delivered' });
    const r = receiver.received[0]!;
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [creds.webhookSecret, rotated.webhookSecret]) expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ IsResent: false });
  });
});
