// A batch as a merchant and an operator follow it, on the real daemon: 1,000 entries with
// known invalid ones put with the OpenSSH client; the ack names an orderSessionKey for every
// accepted entry, and they resolve over HTTP (all through the batch's listing, one in twenty
// with GET /v1/orders/{key}); GET /v1/batches/{id} and
// `rescued batches show` (run beside the daemon) give the ack's figures; `orders find
// --order-id` finds an accepted order. Another merchant sees none of it (404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { openDatabase, pgliteDirFor, type Database } from '../../src/db/client.ts';
import { seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';
import { sftp, sshKey } from '../helpers/sftp.ts';
import { waitFor } from '../helpers/wait.ts';
import { writeBatch } from '../../samples/generate-batch.ts';

const ENTRIES = 1000;
/** Every 40th entry carries an unknown currency: 25 known rejections. */
const INVALID_EVERY = 40;

interface Creds {
  mid: string;
  siteId: string;
  clientId: string;
  clientSecret: string;
  tokenizationKey: string;
  sftpUsername: string;
}

interface Ack {
  batchId: string;
  status: string;
  counts: { entries: number; accepted: number; rejected: number };
  accepted: Array<{ sequenceNumber: number; orderId: string; orderSessionKey: string }>;
  rejected: Array<{ sequenceNumber: number; orderId: string }>;
}

const waitForFile = (path: string, timeoutMs = 60_000) => waitFor(() => existsSync(path), { what: path, timeoutMs });

describe.each(DB_KINDS)('a batch followed through the API and the CLI beside rescued serve on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-batches-');
  const local = tempDir('rescued-e2e-batches-local-');
  const key = sshKey(local);
  // The engine is off: the figures under test are intake's, and they must not move meanwhile.
  // The merchant's rate limit is raised: the test reads back every one of a thousand orders.
  const env: NodeJS.ProcessEnv = {
    RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '200', RESCUED_ENGINE_ENABLED: 'false',
    RESCUED_API_RATE_LIMIT_PER_SECOND: '100000', RESCUED_API_RATE_LIMIT_BURST: '100000',
  };
  let drop: (() => Promise<void>) | undefined;
  let daemon: RunningDaemon;
  let base: string;
  let a: Creds;
  let b: Creds;
  let bearer: { a: string; b: string };
  let ack: Ack;
  /** Open only while setting up, before the daemon starts: one opening of the data instead of one per command. */
  let setupDatabase: Database | undefined;

  const cli = async (...args: string[]) => {
    const res = await runCli(args, env, setupDatabase);
    expect(res.status, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    return res.stdout;
  };
  const api = async (path: string, who: 'a' | 'b' = 'a') => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: bearer[who] } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const tokenOf = async (c: Creds) => {
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: c.clientId, appSecret: c.clientSecret }) });
    return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
  };

  beforeAll(async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    // Set up before the daemon starts, on one opening of the data: these commands are not what this file tests.
    setupDatabase = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(dataDir), poolSize: 1, log: silentLog });
    a = JSON.parse(await cli('merchant', 'add', '--name', 'Batch Sender', '--json')) as Creds;
    b = JSON.parse(await cli('merchant', 'add', '--name', 'Someone Else', '--json')) as Creds;
    await cli('merchant', 'allow-ip', a.mid, '127.0.0.1');
    await cli('merchant', 'add-key', a.mid, `${key.privatePath}.pub`);
    await setupDatabase.close();
    setupDatabase = undefined;
    daemon = startDaemon(env);
    [, base] = (await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/)) as [string, string];
    const [, port] = await daemon.waitFor(/"stage":"sftp","address":"[^"]*:(\d+)"/);
    bearer = { a: await tokenOf(a), b: await tokenOf(b) };
    const tokenized = await fetch(`${base}/v1/tokenize?mid=${a.mid}&environment=${a.tokenizationKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2030' } } }),
    });
    const cardToken = ((await tokenized.json()) as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;
    const path = join(local, 'rebills.json');
    const out = createWriteStream(path);
    await writeBatch(out, { entries: ENTRIES, mid: a.mid, siteId: a.siteId, authorizationToken: bearer.a, cardTokens: [cardToken], invalidEvery: INVALID_EVERY, runId: `e2e${kind}` });
    out.end();
    await once(out, 'finish');
    const put = await sftp({ port: Number(port), username: a.sftpUsername, key: key.privatePath }, [`put ${path} inbound/`]);
    expect(put.status, put.stderr).toBe(0);
    const ackPath = join(dataDir, 'sftp', a.sftpUsername, 'outbound', 'rebills.json.ack.json');
    await waitForFile(ackPath);
    ack = JSON.parse(readFileSync(ackPath, 'utf8')) as Ack;
  });
  afterAll(async () => {
    daemon?.child.kill('SIGTERM');
    await daemon?.exited;
    await drop?.();
  });

  it('the ack lists every accepted entry with its orderSessionKey, and they resolve over HTTP', async () => {
    const rejected = ENTRIES / INVALID_EVERY;
    expect(ack).toMatchObject({ status: 'partially_accepted', counts: { entries: ENTRIES, accepted: ENTRIES - rejected, rejected } });
    expect(ack.accepted).toHaveLength(ENTRIES - rejected);
    expect(ack.rejected.map((r) => r.sequenceNumber).sort((x, y) => x - y)).toEqual(Array.from({ length: rejected }, (_, i) => (i + 1) * INVALID_EVERY));
    // All of them through the batch's listing (two pages), and one in twenty one by one.
    const listed: string[] = [];
    for (let cursor = ''; ; ) {
      const page = (await api(`/v1/orders?batchId=${ack.batchId}&limit=500${cursor}`)).body as { orders: Array<{ orderSessionKey: string }>; nextCursor: string | null };
      listed.push(...page.orders.map((o) => o.orderSessionKey));
      if (!page.nextCursor) break;
      cursor = `&cursor=${page.nextCursor}`;
    }
    expect(listed).toEqual(ack.accepted.map((e) => e.orderSessionKey));
    const queue = ack.accepted.filter((_, i) => i % 20 === 0 || i === ack.accepted.length - 1);
    const check = async () => {
      for (let e = queue.shift(); e; e = queue.shift()) {
        const res = await api(`/v1/orders/${e.orderSessionKey}`);
        expect(res.status, e.orderSessionKey).toBe(200);
        expect(res.body).toMatchObject({ orderId: e.orderId, sequenceNumber: e.sequenceNumber, batchId: ack.batchId, status: 'SUBMITTED' });
      }
    };
    await Promise.all(Array.from({ length: 8 }, check));
  });

  it('GET /v1/batches/{id} and `batches show` give the ack\'s figures; `orders find` finds an accepted order', async () => {
    const figures = { batchId: ack.batchId, fileName: 'rebills.json', status: ack.status, entries: ack.counts.entries, accepted: ack.counts.accepted, rejected: ack.counts.rejected, ackFile: 'rebills.json.ack.json' };
    const http = await api(`/v1/batches/${ack.batchId}`);
    expect(http.status).toBe(200);
    expect(http.body).toMatchObject({ ...figures, orders: { pending: ack.counts.accepted, approved: 0, expired: 0, cancelled: 0 }, recovered: [] });
    const shown = JSON.parse(await cli('batches', 'show', 'rebills.json', '--merchant', a.mid, '--json'));
    const { success: _s, result: _r, ...sameAsHttp } = http.body;
    expect(shown).toEqual(sameAsHttp);
    expect(await cli('batches', 'show', ack.batchId)).toContain(`entries:   ${ENTRIES}: accepted ${ack.counts.accepted}, rejected ${ack.counts.rejected}`);

    const entry = ack.accepted[123]!;
    const found = JSON.parse(await cli('orders', 'find', '--order-id', entry.orderId, '--merchant', a.mid, '--json'));
    expect(found).toEqual([expect.objectContaining({ orderSessionKey: entry.orderSessionKey, sequenceNumber: entry.sequenceNumber, batchId: ack.batchId })]);
    expect((await api(`/v1/orders?orderId=${encodeURIComponent(entry.orderId)}`)).body).toMatchObject({ orders: [{ orderSessionKey: entry.orderSessionKey }] });
    // A rejected entry's orderId never became an order.
    const rejectedId = ack.rejected[0]!.orderId;
    expect((await runCli(['orders', 'find', '--order-id', rejectedId], env)).status).toBe(1);
    expect((await api(`/v1/orders?orderId=${encodeURIComponent(rejectedId)}`)).status).toBe(404);
  });

  it('another merchant sees none of it: 404 for the batch, its orders and its orderIds', async () => {
    const entry = ack.accepted[0]!;
    for (const path of [`/v1/batches/${ack.batchId}`, `/v1/orders/${entry.orderSessionKey}`, `/v1/orders?orderId=${encodeURIComponent(entry.orderId)}`]) {
      const res = await api(path, 'b');
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 'ERR_HTTP_NOT_FOUND' });
    }
    expect((await api('/v1/batches', 'b')).body).toMatchObject({ batches: [] });
    expect((await api(`/v1/orders?batchId=${ack.batchId}`, 'b')).body).toMatchObject({ orders: [], nextCursor: null });
    const res = await runCli(['orders', 'find', '--order-id', entry.orderId, '--merchant', b.mid], env);
    expect(res.status).toBe(1);
  });
});
