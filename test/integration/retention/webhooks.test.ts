// The purge and webhooks, on both databases: events and their delivered deliveries go after
// retention.webhookDays, a delivery still waiting (a disabled endpoint's) keeps its event and
// its order past every period, and once `webhooks enable` has let it through, both go.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ManualClock } from '../../../src/clock.ts';
import { createDispatcher, type Dispatcher } from '../../../src/webhooks/dispatcher.ts';
import { apiFixture, evaluateBody, type ApiFixture, type ApiMerchant } from '../../helpers/api.ts';
import { runCli } from '../../helpers/cli.ts';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { query, startReceiver, type Receiver } from '../../helpers/webhooks.ts';
import { waitFor } from '../../helpers/wait.ts';

const DAY = 86_400_000;

describe.each(DB_KINDS)('the purge and webhooks on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-purge-webhooks-'));
  const configFile = join(dataDir, 'rescued.json');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  const t0 = Date.now();
  const clock = new ManualClock(t0);
  let f: ApiFixture;
  let dispatcher: Dispatcher | undefined;
  const receivers: Receiver[] = [];
  let gone = true;
  const orders: Record<'a' | 'b', string> = { a: '', b: '' };

  const cli = (at: number, ...args: string[]) => {
    clock.set(at);
    return runCli(['--config', configFile, ...args], env, f.t.tdb.database, undefined, clock);
  };
  const purged = async (at: number) => {
    const res = await cli(at, 'purge', '--json');
    expect(res.status, res.stderr).toBe(0);
    const c = JSON.parse(res.stdout).classes as Record<string, { count: number }>;
    return { orders: c.orders!.count, webhookEvents: c.webhookEvents!.count, webhookDeliveries: c.webhookDeliveries!.count };
  };
  const statuses = async () =>
    (await query(f.t.tdb.database.db, sql`select o.id, d.status from webhook_deliveries d join webhook_events e on e.id = d.event_id join orders o on o.id = e.order_session_key`))
      .map((r) => `${r.id === orders.a ? 'a' : 'b'}:${String(r.status)}`).sort();
  const outcome = async (key: string) => (await f.post('/v1/outcome', { orderSessionKey: key })).statusCode;

  async function cancelledOrder(m: ApiMerchant): Promise<string> {
    const body = evaluateBody(await m.tokenOf('4000000000000077'), { mit: true, top: { expiryDateUtc: new Date(t0 + 30 * DAY).toISOString() } });
    const key = (await f.post('/v1/evaluate', body, m)).json().orderSessionKey as string;
    const res = await f.post(`/v1/orders/${key}/cancel`, {}, m);
    expect(res.json(), res.body).toMatchObject({ status: 'CANCELLED' });
    return key;
  }

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
    if (f.t.tdb.url) env.DATABASE_URL = f.t.tdb.url;
    writeFileSync(configFile, JSON.stringify({ retention: { webhookDays: 30, orderDays: 60 } }));
    // A's receiver takes everything; B's answers 410 until told otherwise, which disables B's endpoint.
    const a = await startReceiver(() => 200);
    const b = await startReceiver(() => (gone ? 410 : 204));
    receivers.push(a, b);
    await f.t.merchants.setWebhook(f.a.mid, a.url);
    await f.t.merchants.setWebhook(f.b.mid, b.url);
    orders.a = await cancelledOrder(f.a);
    orders.b = await cancelledOrder(f.b);
    dispatcher = createDispatcher({
      db: f.t.tdb.database.db, keyRing: f.t.keyRing, log: silentLog, mode: 'sandbox', timeoutMs: 2_000, maxInFlight: 4, perEndpointConcurrency: 2,
      leaseSeconds: 30, pollIntervalMs: 20, retryDelaysMs: [20], random: () => 0.5, clock,
    });
    dispatcher.start();
    await waitFor(async () => ((await statuses()).join() === 'a:delivered,b:pending' && b.received.length > 0) || undefined, { what: 'A delivered, B disabled', detail: () => String(receivers.map((r) => r.received.length)) });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    for (const r of receivers) await r.close();
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivered events go after webhookDays; the order stays until orderDays', async () => {
    expect(await purged(t0 + 20 * DAY)).toEqual({ orders: 0, webhookEvents: 0, webhookDeliveries: 0 });
    expect(await purged(t0 + 40 * DAY)).toEqual({ orders: 0, webhookEvents: 1, webhookDeliveries: 1 });
    expect(await statuses()).toEqual(['b:pending']);
    expect(await outcome(orders.a)).toBe(200);
  });

  it('a delivery still waiting keeps its event and its order past every period', async () => {
    expect(await purged(t0 + 70 * DAY)).toEqual({ orders: 1, webhookEvents: 0, webhookDeliveries: 0 });
    expect(await outcome(orders.a)).toBe(404);
    expect(await statuses()).toEqual(['b:pending']);
    expect((await f.post('/v1/outcome', { orderSessionKey: orders.b }, f.b)).statusCode).toBe(200);
  });

  it('once enabled and delivered, the order and its event go', async () => {
    gone = false;
    const enabled = await cli(t0 + 70 * DAY, 'webhooks', 'enable', f.b.mid);
    expect(enabled.status, enabled.stderr).toBe(0);
    await waitFor(async () => (await statuses()).join() === 'b:delivered' || undefined, { what: 'B delivered after enable' });
    await dispatcher!.stop();
    dispatcher = undefined;
    expect(await purged(t0 + 70 * DAY)).toEqual({ orders: 1, webhookEvents: 1, webhookDeliveries: 1 });
    expect((await f.post('/v1/outcome', { orderSessionKey: orders.b }, f.b)).statusCode).toBe(404);
  });
});
