// An updated card end to end, through a real daemon (sandbox), real HTTP and a webhook
// receiver that verifies both signature schemes: an MIT handed over with an expired-card
// decline waits for an updated card and says so (order.card_update_needed); the merchant
// sends a new card (POST …/payment-method); the order is APPROVED on it, attributed
// merchant_update, and the expired card was never charged.
import { afterAll, describe, expect, it } from 'vitest';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { seededDataDir, startDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';
import { asMerchant, evaluateBody } from '../helpers/api.ts';
import { startReceiver, type Received } from '../helpers/webhooks.ts';
import { waitFor } from '../helpers/wait.ts';

// The answers and event bodies are read as the JSON they are: field by field, checked by the expectations.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The x-fc check as a merchant would write it (DESIGN.md §2), not with the code under test. */
function xfcVerifies(secret: string, r: Received): boolean {
  const h = r.headers as Record<string, string>;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const digest = createHash('sha512').update(r.body).digest('base64');
  if (digest !== h['x-fc-content-sha512']) return false;
  const expected = Buffer.from(createHmac('sha512', key).update(`POST\n${h['x-fc-nonce']};${h['x-fc-date']};${h.host};${digest}`).digest('base64'));
  return h['x-fc-signature']!.split(' ').some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

describe.each(DB_KINDS)('an updated card end to end on %s', (kind) => {
  const dataDir = seededDataDir('rescued-card-updates-');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false', RESCUED_ENGINE_POLL_INTERVAL_MS: '100', RESCUED_WEBHOOKS_POLL_INTERVAL_MS: '50' };
  let drop: (() => Promise<void>) | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    await receiver?.close();
    await drop?.();
  });

  it('expired card → order.card_update_needed (verified) → new card → APPROVED by merchant_update, the old card never charged', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    receiver = await startReceiver(() => 200);
    const add = await runCli(['merchant', 'add', '--name', 'Cards Inc', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    const creds = JSON.parse(add.stdout) as Record<string, string>;
    expect((await runCli(['merchant', 'set-webhook', creds.mid!, receiver.url], env)).status).toBe(0);
    const daemon = startDaemon(env);
    try {
      const [, base] = await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/);
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(`${base}${path}`, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body ? { body: JSON.stringify(body) } : {}) });
        return { status: res.status, json: (await res.json()) as Json };
      };
      const token = await call('POST', '/oauth2/token', { appKey: creds.clientId, appSecret: creds.clientSecret });
      const auth = { authorization: `Bearer ${token.json.access_token as string}` };
      const tokenize = async (number: string) => {
        const card = { first_name: 'Jane', last_name: 'Doe', number, month: '12', year: '2035' };
        const res = await call('POST', `/v1/tokenize?mid=${creds.mid}&environment=${encodeURIComponent(creds.tokenizationKey!)}`, { payment_method: { credit_card: card } });
        return res.json.transaction.payment_method.token as string;
      };
      const expired = await tokenize('4000000000000069');
      const own = { mid: creds.mid!, siteId: creds.siteId! };
      const mit = await call('POST', '/v1/evaluate', asMerchant(evaluateBody(expired, { mit: true, tx: { responseCode: '54', responseCodeSource: 'iso8583' } }), own), auth);
      expect(mit.json.status).toBe('SUBMITTED');
      const key = mit.json.orderSessionKey as string;

      const events = () => receiver!.received.map((r) => ({ r, body: new Webhook(creds.webhookSecret!).verify(r.body, r.headers as Record<string, string>) as Json }));
      await waitFor(() => events().some((e) => e.body.OrderId === key && e.body.EventData.type === 'order.card_update_needed'), { what: 'order.card_update_needed delivered', timeoutMs: 60_000 });
      const needed = events().find((e) => e.body.EventData.type === 'order.card_update_needed')!;
      expect(xfcVerifies(creds.webhookSecret!, needed.r)).toBe(true);
      expect(needed.body).toMatchObject({ Event: 'ORDER CARD UPDATE NEEDED', EventData: { status: 'PENDING', decline: { reason: 'expired_card', code: '54' } } });
      expect((await call('GET', `/v1/orders/${key}`, undefined, auth)).json).toMatchObject({ nextAttempt: { reason: 'awaiting_updated_card', decline: { reason: 'expired_card' } } });

      const updated = await call('POST', `/v1/orders/${key}/payment-method`, { token: await tokenize('4242424242424242') }, auth);
      expect(updated.status, JSON.stringify(updated.json)).toBe(200);
      await waitFor(async () => (await call('GET', `/v1/orders/${key}`, undefined, auth)).json.status === 'APPROVED', { what: 'the order approved on the new card', timeoutMs: 60_000 });
      const order = (await call('GET', `/v1/orders/${key}`, undefined, auth)).json;
      expect(order).toMatchObject({ recoveredBy: 'merchant_update', cardUpdates: [{ source: 'merchant', last4: '4242' }] });
      // The expired card was charged at most once: here never (its decline was the merchant's own).
      expect(order.attemptHistory.filter((a: { card: { source: string } }) => a.card.source === 'original').length).toBeLessThanOrEqual(1);
      expect(order.attemptHistory.at(-1)).toMatchObject({ status: 'approved', card: { source: 'merchant', last4: '4242' } });
      await waitFor(() => events().some((e) => e.body.OrderId === key && e.body.EventData.type === 'order.completed'), { what: 'order.completed delivered', timeoutMs: 60_000 });
      const completed = events().find((e) => e.body.EventData.type === 'order.completed')!;
      expect(xfcVerifies(creds.webhookSecret!, completed.r)).toBe(true);
      expect(completed.body.EventData).toMatchObject({ recoveredBy: 'merchant_update' });
      expect(events().map((e) => e.body.EventData.type)).toEqual(expect.arrayContaining(['order.card_update_needed', 'order.card_updated', 'order.completed']));
    } finally {
      daemon.child.kill('SIGTERM');
      expect((await daemon.exited).code).toBe(0);
    }
  });
});
