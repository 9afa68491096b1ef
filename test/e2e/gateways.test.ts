// A merchant's own gateway accounts through the real daemon: one merchant with a Stripe account
// (raw card data), an HTTP bridge (its default) and an NMI account (no idempotency key: an
// unknown outcome is reconciled by a look-up), each a local fake written from the gateway's
// reference. A batch put with the OpenSSH client is charged entry by entry through the account
// each entry names, once, with one signed webhook per order and a results file listing every
// entry. Then the daemon is SIGKILLed while calls are in flight at the three gateways (the fakes
// hold them until told), three times with fresh orders: after a restart every order ends
// APPROVED with exactly one charge at the gateways and one webhook (the same webhook-id if it
// was delivered twice).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { sftp, sshKey } from '../helpers/sftp.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { waitFor } from '../helpers/wait.ts';
import { GATEWAY_TYPES, ROUTINGS, batchEntry, insertRoutedOrders, startGateways, type Gateways, type GatewayType, type Routing } from '../helpers/gateways.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openCore } from '../../src/core.ts';
import { openDatabase, pgliteDirFor, type Db } from '../../src/db/client.ts';
import { attempts, orders, webhookDeliveries, webhookEvents } from '../../src/db/schema.ts';
import { createAccountService } from '../../src/processors/accounts.ts';
import { sandboxTestCards, type TestCard } from '../../src/vault/test-cards.ts';

// Whitelisted sandbox cards; the gateways' fakes decide the answers, so two the built-in
// sandbox would decline are approved here (the sandbox is not asked).
const CARDS = ['4111111111111111', '4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '4000056655665556', '2223003122003222', '4000000000000002', '3566002020360505', '4000000000009995'];
const card = (n: string): TestCard => sandboxTestCards().find(n)!;
const LABELS: Record<GatewayType, string> = { http: 'bridge', stripe: 'stripe-main', nmi: 'nmi-main' };
/** What each fake answers an approval with: its raw code, and its network transaction id if it gives one. */
const APPROVAL: Record<GatewayType, { rawCode: string; ntid: RegExp | null }> = {
  stripe: { rawCode: 'succeeded', ntid: /^ntid_pi_/ },
  http: { rawCode: 'approved', ntid: /^ntid_ch_/ },
  nmi: { rawCode: '100', ntid: null },
};

interface Trial {
  what: string;
  /** engine.pauseAfterAnswerMs of the daemon that is killed. */
  pauseMs: number;
  /** Calls each gateway answers, of the two it holds, before the kill. */
  answered: number;
  /** The daemon's log line for each answered call that says it got that far (its message starts so). */
  logged?: string;
}

// Three orders per account and two calls at once per account (processor.accountConcurrency).
// The fakes hold every call until told: each moment to kill is a state the test sees — the
// calls each gateway received and answered, and the daemon's log lines about the answers —
// and nothing moves between that sight and the kill, however slow the machine.
const TRIALS: Trial[] = [
  { what: 'before any gateway answered, two calls held at each', pauseMs: 0, answered: 0 },
  { what: 'after one answer per gateway was recorded, the third order sent, and two calls held at each', pauseMs: 0, answered: 1, logged: 'attempt finished' },
  { what: 'with two answers per gateway received but not recorded, and the third call held at each', pauseMs: 60_000, answered: 2, logged: 'processor answered; pausing before recording' },
];

/** The daemon's JSON log lines about these orders whose message starts with `msg`. */
function loggedFor(daemon: RunningDaemon, ids: ReadonlySet<string>, msg: string): number {
  return daemon.stdout().split('\n').filter((l) => l.includes(msg)).map((l) => JSON.parse(l) as { msg: string; orderSessionKey?: string })
    .filter((l) => l.msg.startsWith(msg) && ids.has(l.orderSessionKey ?? '')).length;
}

interface Merchant {
  mid: string;
  siteId: string;
  merchantId: string;
  username: string;
  webhookSecret: string;
  accessToken: string;
  accountType: Map<string, GatewayType>;
  tokens: Map<string, string>;
}

describe.each(DB_KINDS)('gateway accounts end to end on %s', (kind) => {
  const dataDir = seededDataDir('rescued-gateways-');
  const local = tempDir('rescued-gateways-local-');
  const key = sshKey(local);
  const env: NodeJS.ProcessEnv = {
    RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_LOG_LEVEL: 'debug', RESCUED_SFTP_WATCH_STABILITY_MS: '200',
    RESCUED_ENGINE_POLL_INTERVAL_MS: '50', RESCUED_ENGINE_LEASE_SECONDS: '5', RESCUED_ENGINE_SWEEP_CRON: '* * * * * *',
    RESCUED_PROCESSOR_TIMEOUT_MS: '5000', RESCUED_PROCESSOR_ACCOUNT_CONCURRENCY: '2', RESCUED_PROCESSOR_RECONCILE_AFTER_MS: '200',
    RESCUED_WEBHOOKS_POLL_INTERVAL_MS: '50', RESCUED_WEBHOOKS_LEASE_SECONDS: '5', RESCUED_WEBHOOKS_TIMEOUT_MS: '1000',
  };
  let drop: (() => Promise<void>) | undefined;
  let gw: Gateways;
  let receiver: Receiver;
  /** While set, the receiver holds every POST until it settles (then answers 500 to a dead connection). */
  let holdHooks: Promise<void> | undefined;
  let m: Merchant;
  /** Every order this file made, with the gateway it must be charged at. */
  const made = new Map<string, GatewayType>();

  beforeAll(async () => {
    [gw, receiver] = await Promise.all([startGateways(), startReceiver(() => (holdHooks ? { status: 500, hold: holdHooks } : 200))]);
    env.RESCUED_PROCESSOR_GATEWAY_URLS = JSON.stringify(gw.urls);
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      drop = server.drop;
      env.DATABASE_URL = server.url;
    }
    const core = await openCore(loadConfig({ env }), silentLog);
    try {
      const creds = await core.merchants.add({ name: 'Gateways Inc' });
      const merchantId = (await core.merchants.byMid(creds.mid)).id;
      await core.merchants.addKey(creds.mid, key.publicText);
      await core.merchants.allowIp(creds.mid, '127.0.0.1');
      await core.merchants.setWebhook(creds.mid, receiver.url);
      const accounts = createAccountService({ db: core.database.db, ring: core.keyRing, mode: core.config.mode });
      const added = [
        await accounts.add(creds.mid, { type: 'http', label: LABELS.http, isDefault: true, credentials: { url: gw.bridge.url, secret: gw.bridge.secret } }),
        await accounts.add(creds.mid, { type: 'stripe', label: LABELS.stripe, credentials: { secretKey: gw.stripe.key, rawCardData: true } }),
        await accounts.add(creds.mid, { type: 'nmi', label: LABELS.nmi, credentials: { securityKey: gw.nmi.key } }),
      ];
      expect(added.map((a) => [a.label, a.isDefault])).toEqual([['bridge', true], ['stripe-main', false], ['nmi-main', false]]);
      const accountType = new Map<string, GatewayType>();
      for (const type of GATEWAY_TYPES) accountType.set((await accounts.find(creds.mid, LABELS[type])).row.id, type);
      const tokens = new Map<string, string>();
      for (const n of CARDS) tokens.set(n, (await core.vault.tokenize(merchantId, { number: n, month: 12, year: 2035, firstName: 'Test', lastName: 'Payer' })).card.token);
      const { token } = await core.tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
      m = {
        mid: creds.mid, siteId: creds.siteId, merchantId, username: creds.sftpUsername, webhookSecret: creds.webhookSecret, accessToken: token,
        accountType, tokens,
      };
    } finally {
      await core.database.close();
    }
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), receiver?.close()]);
    await drop?.();
  });

  const outbound = () => join(dataDir, 'sftp', m.username, 'outbound');

  // A test's daemons are killed when it ends, pass or fail (helpers/daemon.ts): none is left
  // holding the database for the next test (the card sweep).
  const start = (extra: NodeJS.ProcessEnv): RunningDaemon => startDaemon({ ...env, ...extra });

  async function serve(extra: NodeJS.ProcessEnv = {}): Promise<RunningDaemon> {
    const daemon = start(extra);
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    return daemon;
  }

  async function stop(daemon: RunningDaemon): Promise<void> {
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  }

  /** The database, opened while no daemon runs (PGlite allows one process). */
  async function withDb<T>(body: (db: Db) => Promise<T>): Promise<T> {
    const database = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(dataDir), poolSize: 1, log: silentLog });
    try {
      return await body(database.db);
    } finally {
      await database.close();
    }
  }

  /** Every webhook received, verified with the published Standard Webhooks library (it throws on a bad signature). */
  const hooks = () => receiver.received.map((r) => ({
    id: r.headers['webhook-id'] as string,
    body: new Webhook(m.webhookSecret).verify(r.body, r.headers as Record<string, string>) as { Event: string; OrderId: string; ConfirmationId: string | null },
  }));
  /**
   * Every order's ORDER COMPLETE webhook was answered 200 to this daemon, which logs it before
   * it records it; a graceful stop records what it logged. (The receiver alone cannot tell:
   * a daemon killed after the 200 and before its record delivers the event again.)
   */
  const delivered = (daemon: RunningDaemon, ids: string[]) => {
    const out = daemon.stdout();
    const hookIds = new Map<string, Set<string>>();
    for (const h of hooks()) if (h.body.Event === 'ORDER COMPLETE') hookIds.set(h.body.OrderId, (hookIds.get(h.body.OrderId) ?? new Set()).add(h.id));
    return ids.every((id) => [...(hookIds.get(id) ?? [])].some((hid) => new RegExp(`"webhookId":"${hid}"[^\\n]*"outcome":"delivered"`).test(out)));
  };

  /**
   * Each order: APPROVED after one attempt, pinned to the account its routing names and
   * recorded with that gateway's own words; exactly one charge at the fakes, at that gateway,
   * under the attempt's key; one webhook event, delivered (perhaps more than once, under one
   * webhook-id); the confirmationId is the gateway's reference of the charge.
   */
  async function expectChargedOnce(ids: string[], routings: Routing[]): Promise<void> {
    const { rows, runs, deliveries } = await withDb(async (db) => ({
      rows: await db.select().from(orders).where(inArray(orders.id, ids)),
      runs: await db.select().from(attempts).where(inArray(attempts.orderSessionKey, ids)),
      deliveries: await db.select({ order: webhookEvents.orderSessionKey, type: webhookEvents.type, status: webhookDeliveries.status }).from(webhookDeliveries)
        .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId)).where(inArray(webhookEvents.orderSessionKey, ids)),
    }));
    const charges = gw.charges();
    const sent = gw.authorizations();
    const received = hooks();
    const seen = ids.map((id) => {
      const order = rows.find((o) => o.id === id)!;
      const tries = runs.filter((a) => a.orderSessionKey === id);
      const ref = tries[0]?.processorRef;
      const got = received.filter((h) => h.body.OrderId === id);
      return {
        status: order.status, attemptCount: order.attemptCount, confirmedByCharge: order.confirmationId !== null && order.confirmationId === ref,
        attempts: tries.map((a) => ({
          no: a.attemptNo, status: a.status, key: a.idempotencyKey, gateway: a.accountId ? m.accountType.get(a.accountId) : null,
          route: a.route, rawCode: a.rawCode, ntid: a.networkTransactionId === null ? null : APPROVAL[m.accountType.get(a.accountId!)!].ntid?.test(a.networkTransactionId) ?? 'unexpected', unknown: a.unknownSince,
        })),
        charges: (charges.get(id) ?? []).map((c) => ({ at: c.type, key: c.key, isTheAttempts: c.ref === ref })),
        // Every authorization sent for the order, first call and any replay: one gateway, one key.
        sent: [...(sent.get(id) ?? [])],
        webhookIds: new Set(got.map((h) => h.id)).size,
        webhooks: [...new Set(got.map((h) => `${h.body.Event} ${h.body.ConfirmationId === ref ? 'confirming the charge' : h.body.ConfirmationId}`))],
        deliveries: deliveries.filter((d) => d.order === id).map((d) => `${d.type} ${d.status}`),
      };
    });
    // An attempt answered after a restart (a reconciliation, sent as 'pinned') keeps the reason
    // its account was chosen for, written when it was pinned before its first call.
    expect(seen).toEqual(routings.map((r, i) => ({
      status: 'APPROVED', attemptCount: 1, confirmedByCharge: true,
      attempts: [{
        no: 1, status: 'approved', key: `${ids[i]}:1`, gateway: r.expect.type, route: r.expect.route,
        rawCode: APPROVAL[r.expect.type].rawCode, ntid: APPROVAL[r.expect.type].ntid ? true : null, unknown: null,
      }],
      charges: [{ at: r.expect.type, key: `${ids[i]}:1`, isTheAttempts: true }],
      sent: [`${r.expect.type} ${ids[i]}:1`],
      webhookIds: 1, webhooks: ['ORDER COMPLETE confirming the charge'], deliveries: ['order.completed delivered'],
    })));
    // NMI keeps no idempotency key: a second sale under one attempt key would be a second charge.
    for (const [k, n] of gw.nmiSalesByKey()) expect(n, `NMI sales for ${k}`).toBe(1);
  }

  it('charges a batch put over SFTP through the account each entry names, once, with one webhook each and a results file', async () => {
    const name = `gateways-${kind}.json`;
    const orderIds = ROUTINGS.map((_, i) => `ORD-gw-batch-${kind}-${i + 1}`);
    const cards = ROUTINGS.map((_, i) => CARDS[i % CARDS.length]!);
    const requests = ROUTINGS.map((r, i) => batchEntry(i, r, { mid: m.mid, siteId: m.siteId, orderId: orderIds[i]!, card: card(cards[i]!), token: m.tokens.get(cards[i]!)! }));
    writeFileSync(join(local, name), JSON.stringify({ mid: m.mid, authorizationToken: `Bearer ${m.accessToken}`, expiryDateUtc: new Date(Date.now() + 10 * 86_400_000).toISOString(), requests }, null, 1));

    // Intake alone, so the orders wait SUBMITTED for the clock to be moved.
    const intake = await serve({ RESCUED_ENGINE_ENABLED: 'false' });
    const [, port] = await intake.waitFor(/"stage":"sftp","address":"[^"]*:(\d+)"/);
    const login = { port: Number(port), username: m.username, key: key.privatePath };
    const put = await sftp(login, [`put ${join(local, name)} inbound/`]);
    expect(put.status, put.stderr).toBe(0);
    await waitFor(() => existsSync(join(outbound(), `${name}.ack.json`)), { what: 'the acknowledgement' });
    await stop(intake);
    const ack = JSON.parse(readFileSync(join(outbound(), `${name}.ack.json`), 'utf8')) as { batchId: string };
    expect(ack).toMatchObject({ status: 'accepted', counts: { entries: 9, accepted: 9, rejected: 0 } });

    // The planner never schedules a retry less than a minute ahead (engine/rules.ts minLeadMs),
    // and for these declines hours or days ahead: the orders are made due now, as if that time
    // had come, which is what the claim reads.
    const byOrderId = await withDb(async (db) => {
      const rows = await db.select().from(orders).where(eq(orders.batchId, ack.batchId));
      expect(rows.map((r) => r.status)).toEqual(Array(9).fill('SUBMITTED'));
      await db.update(orders).set({ status: 'PENDING', nextAttemptAt: new Date(Date.now() - 1000) }).where(eq(orders.batchId, ack.batchId));
      return new Map(rows.map((r) => [r.orderId, r.id]));
    });
    const ids = orderIds.map((o) => byOrderId.get(o)!);
    ids.forEach((id, i) => made.set(id, ROUTINGS[i]!.expect.type));

    const daemon = await serve();
    const [, again] = await daemon.waitFor(/"stage":"sftp","address":"[^"]*:(\d+)"/);
    const results = `${name}.results.json`;
    await waitFor(() => delivered(daemon, ids) && existsSync(join(outbound(), results)), { what: 'every order final, its webhook delivered and the results file', timeoutMs: 60_000, wakeOn: [[daemon.child.stdout!, 'data']] });
    const got = await sftp({ ...login, port: Number(again) }, [`get outbound/${results} ${local}/`]);
    expect(got.status, got.stderr).toBe(0);
    await stop(daemon);

    await expectChargedOnce(ids, ROUTINGS);
    // No crash here: each order's webhook was POSTed once.
    expect(receiver.received.filter((r) => ids.includes(JSON.parse(r.body).OrderId))).toHaveLength(9);
    const file = JSON.parse(readFileSync(join(local, results), 'utf8')) as { results: Record<string, unknown>[]; total: number; counts: Record<string, number> };
    expect(file).toMatchObject({ total: 9, counts: { APPROVED: 9 } });
    expect(file.results).toEqual(ROUTINGS.map((r, i) => expect.objectContaining({
      sequenceNumber: i + 1, orderId: orderIds[i], orderSessionKey: ids[i], status: 'APPROVED', attempts: 1, confirmationId: expect.any(String),
      gateway: expect.objectContaining({ account: LABELS[r.expect.type], type: r.expect.type, rawCode: APPROVAL[r.expect.type].rawCode }),
    })));
  });

  // Three trials of two daemons each, and the database opened between them: 100 s were seen
  // beside two CPU burners, so the bound is a loaded machine's.
  it('SIGKILL with calls in flight at the three gateways: after a restart every order is final, charged once, with one webhook', { timeout: 300_000 }, async () => {
    for (const [t, trial] of TRIALS.entries()) {
      const ids = await withDb((db) => insertRoutedOrders(db, ROUTINGS.map((routing, i) => {
        const n = CARDS[(i + 3 * t + 1) % CARDS.length]!;
        return { merchantId: m.merchantId, routing, card: card(n), token: m.tokens.get(n)!, expiresAt: new Date(Date.now() + 10 * 86_400_000) };
      })));
      ids.forEach((id, i) => made.set(id, ROUTINGS[i]!.expect.type));
      const mine = new Set(ids);
      const lookupsBefore = gw.nmiLookups().length;
      gw.holdAll();
      // Webhooks the killed daemon sends hang until the kill: each is sent again, under its webhook-id, after the restart.
      let release!: () => void;
      holdHooks = new Promise<void>((r) => (release = r));

      const first = start({ RESCUED_SFTP_ENABLED: 'false', RESCUED_ENGINE_PAUSE_AFTER_ANSWER_MS: String(trial.pauseMs) });
      const at = (what: string, holds: (calls: ReturnType<Gateways['calls']>) => boolean) => waitFor(() => {
        if (first.child.exitCode !== null) expect.fail(`the daemon exited\n${first.stdout().slice(-3000)}`);
        return holds(gw.calls(mine));
      }, {
        what: `trial ${t + 1}: ${what}`, timeoutMs: 60_000, wakeOn: [[first.child.stdout!, 'data']],
        detail: () => `calls: ${JSON.stringify(gw.calls(mine))}\n${first.stdout().split('\n').filter((l) => /"level":[456]0/.test(l)).join('\n').slice(-4000)}`,
      });
      await at('two calls held at each gateway', (calls) => GATEWAY_TYPES.every((type) => calls[type].received === 2));
      for (const type of GATEWAY_TYPES) gw.answer(type, trial.answered);
      // An answered call frees its slot: the third order goes out, and is held.
      const sent = trial.answered > 0 ? 3 : 2;
      await at(`the moment to kill (${trial.what})`, (calls) => GATEWAY_TYPES.every((type) => calls[type].received === sent)
        && (!trial.logged || loggedFor(first, mine, trial.logged) === 3 * trial.answered));
      const atKill = gw.calls(mine);
      // NMI sales sent before the kill whose answers the daemon had not recorded (held, or
      // answered during the pause): their outcome was known only to NMI.
      const charged = new Set([...gw.nmi.charges.values()].map((c) => c.orderid));
      const sentToNmi = gw.nmi.requests.filter((r) => r.body.type === 'sale' && mine.has(r.body.orderid?.split(':')[0] ?? '')).map((r) => r.body.orderid!)
        .filter((k) => trial.pauseMs > 0 || !charged.has(k));
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(sentToNmi.length, `trial ${t + 1}: NMI sales unrecorded at the kill`).toBeGreaterThan(0);
      for (const type of GATEWAY_TYPES) expect(atKill[type], `trial ${t + 1}: ${type} calls at the kill`).toEqual({ received: sent, charged: trial.answered });
      // The calls held at the kill are answered now, to a dead connection (the charge is made);
      // what the restart sends is answered at once.
      gw.approveAll();
      release();
      holdHooks = undefined;
      const second = await serve({ RESCUED_SFTP_ENABLED: 'false' });
      await waitFor(() => delivered(second, ids), { what: `trial ${t + 1}: every order final after the restart, its webhook delivered`, timeoutMs: 60_000, wakeOn: [[second.child.stdout!, 'data']] });
      await stop(second);
      await expectChargedOnce(ids, ROUTINGS);
      // The NMI attempts sent before the kill were looked up by their key before anything else.
      const lookups = gw.nmiLookups().slice(lookupsBefore);
      for (const k of sentToNmi) expect(lookups, `trial ${t + 1}: look-up of ${k}`).toContain(k);
    }
    // Nothing was charged at the gateways but these orders, each once.
    const all = [...gw.charges()].flatMap(([order, cs]) => cs.map((c) => [order, c.type]));
    expect(all.sort()).toEqual([...made].sort());
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
