// The merchant API through a real daemon process and real HTTP: OAuth token, tokenize, CIT
// evaluate decided at once, MIT evaluate picked up by the engine, outcome, transmit stored
// when the daemon stops (SIGTERM flushes the buffer), metrics and the OpenAPI document.
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';



import { eq } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { asMerchant, evaluateBody, SOFT } from '../helpers/api.ts';
import { waitFor } from '../helpers/wait.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/client.ts';
import { transmits } from '../../src/db/schema.ts';

describe.each(DB_KINDS)('merchant API end to end on %s', (kind) => {
  const dataDir = seededDataDir('rescued-api-');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false' };
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });

  it('serves the calls over HTTP and stores buffered transmits on SIGTERM', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const add = await runCli(['merchant', 'add', '--name', 'Api Inc', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    const creds = JSON.parse(add.stdout) as Record<string, string>;
    const daemon = startDaemon(env);
    const [, base] = await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/);
    const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    const token = await call('/oauth2/token', { appKey: creds.clientId, appSecret: creds.clientSecret });
    expect(token.status).toBe(200);
    const auth = { authorization: `Bearer ${token.json.access_token as string}` };
    const card = { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', verification_value: '123', month: '12', year: '2035' };
    const tok = await call(`/v1/tokenize?mid=${creds.mid}&environment=${encodeURIComponent(creds.tokenizationKey!)}`, { payment_method: { credit_card: card } });
    const cardToken = (tok.json.transaction as { payment_method: { token: string } }).payment_method.token;

    const own = { mid: creds.mid!, siteId: creds.siteId! };
    const cit = await call('/v1/evaluate', asMerchant(evaluateBody(cardToken, { tx: SOFT }), own), auth);
    expect(cit).toMatchObject({ status: 200, json: { result: 'Success', status: 'APPROVED' } });
    const mit = await call('/evaluate', asMerchant(evaluateBody(cardToken, { mit: true }), own), auth);
    expect(mit.json.status).toBe('SUBMITTED');
    // The engine plans the order within a few polls: it leaves SUBMITTED.
    await waitFor(async () => (await call('/v1/outcome', { orderSessionKey: mit.json.orderSessionKey }, auth)).json.status !== 'SUBMITTED', { what: 'the MIT order planned' });

    const transmitted = await call('/v1/transmit', { orderId: `ORD-${randomUUID()}`, transaction: { amount: 1000, currency: 'USD', timestampUtc: new Date().toISOString(), timezoneUtcOffset: 0, responseStatus: 'Approved' }, payer: { email: 'a@b.example' } }, auth);
    expect(transmitted.status).toBe(202);

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('rescued_decisions_total{kind="CIT",status="APPROVED"} 1');
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string };
    expect(doc.openapi).toBe('3.1.0');

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    const database = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(dataDir), poolSize: 1, log: silentLog });
    try {
      expect(await database.db.select().from(transmits).where(eq(transmits.id, transmitted.json.transmitId as string))).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs(), cvvs: ['123'] });
  });
});
