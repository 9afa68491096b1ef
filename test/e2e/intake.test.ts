// Batch intake as a merchant meets it: credentials from the sandbox banner, a card
// tokenized over HTTP, the sample batch put with the OpenSSH client, the acknowledgement
// fetched back over SFTP, and the orders in the database after the daemon stops. Then a
// SIGKILL in the middle of a larger file: after the restart it is ingested exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { sftp, sshKey } from '../helpers/sftp.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/client.ts';
import { orders } from '../../src/db/schema.ts';
import { writeBatch } from '../../samples/generate-batch.ts';
import { SAMPLE_SITE_ID } from '../helpers/intake.ts';

const SAMPLES = join(import.meta.dirname, '../../samples/batches');

async function waitForFile(path: string, timeoutMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!existsSync(path)) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(DB_KINDS)('batch intake through rescued serve on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-intake-');
  const local = tempDir('rescued-e2e-intake-local-');
  const key = sshKey(local);
  // The engine is off: these tests are about intake, and on PGlite's one connection planning
  // 50,000 new orders would only slow the restart and the drain they time.
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '200', RESCUED_ENGINE_ENABLED: 'false' };
  let drop: (() => Promise<void>) | undefined;
  let banner: { mid: string; siteId: string; clientId: string; secret: string; tokenizationKey: string; port: string; username: string };
  let fill: (text: string) => string;

  async function countOrders(): Promise<number> {
    const database = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(dataDir), poolSize: 1, log: silentLog });
    try {
      return (await database.db.select({ n: count() }).from(orders))[0]!.n;
    } finally {
      await database.close();
    }
  }

  async function running(): Promise<RunningDaemon> {
    const daemon = startDaemon({ ...env, RESCUED_SFTP_PORT: banner?.port ?? '0' });
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    return daemon;
  }

  beforeAll(async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const first = startDaemon(env);
    const [, clientId, secret] = await first.waitFor(/curl -s -u '([^:]+):([^']+)'/, 'stderr');
    const [, mid] = await first.waitFor(/mid\s+([0-9a-f-]{36})/, 'stderr');
    const [, siteId] = await first.waitFor(/siteId\s+([0-9a-f-]{36})/, 'stderr');
    const [, tokenizationKey] = await first.waitFor(/tokenization key\s+(\S+)/, 'stderr');
    const [, port, username] = await first.waitFor(/sftp -P (\d+) -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
    const [, base] = await first.waitFor(/"address":"(http:\/\/[^"]+)"/);
    banner = { mid: mid!, siteId: siteId!, clientId: clientId!, secret: secret!, tokenizationKey: tokenizationKey!, port: port!, username: username! };
    const { access_token } = (await (await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: clientId, appSecret: secret }) })).json()) as { access_token: string };
    const tokenized = await fetch(`${base}/v1/tokenize?mid=${mid}&environment=${tokenizationKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2030' } } }),
    });
    const cardToken = ((await tokenized.json()) as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;
    fill = (text) => text.replaceAll('00000000-0000-4000-8000-000000000000', mid!).replaceAll(SAMPLE_SITE_ID, siteId!).replaceAll('REPLACE_WITH_ACCESS_TOKEN', access_token).replaceAll('tok_REPLACE_WITH_CARD_TOKEN', cardToken);
    first.child.kill('SIGTERM');
    await first.exited;
    expect((await runCli(['merchant', 'add-key', mid!, `${key.privatePath}.pub`], env)).status).toBe(0);
  });
  afterAll(async () => drop?.());

  const outbound = () => join(dataDir, 'sftp', banner.username, 'outbound');
  const login = () => ({ port: Number(banner.port), username: banner.username, key: key.privatePath });

  it('a put of the sample batch yields an accepted ack over SFTP, and the orders exist', async () => {
    const daemon = await running();
    writeFileSync(join(local, 'valid.json'), fill(readFileSync(join(SAMPLES, 'valid.json'), 'utf8')));
    writeFileSync(join(local, 'malformed.json'), fill(readFileSync(join(SAMPLES, 'malformed.json'), 'utf8')));
    expect((await sftp(login(), [`put ${join(local, 'valid.json')} inbound/`, `put ${join(local, 'malformed.json')} inbound/`])).status).toBe(0);
    await waitForFile(join(outbound(), 'valid.json.ack.json'));
    await waitForFile(join(outbound(), 'malformed.json.ack.json'));
    const got = await sftp(login(), [`get outbound/valid.json.ack.json ${local}/`, `get outbound/malformed.json.ack.json ${local}/`]);
    expect(got.status, got.stderr).toBe(0);
    const ack = JSON.parse(readFileSync(join(local, 'valid.json.ack.json'), 'utf8'));
    expect(ack).toMatchObject({ file: 'valid.json', mid: banner.mid, status: 'accepted', counts: { entries: 3, accepted: 3, rejected: 0 }, rejected: [] });
    const bad = JSON.parse(readFileSync(join(local, 'malformed.json.ack.json'), 'utf8'));
    expect(bad).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_SYNTAX', line: expect.any(Number), column: expect.any(Number) } });
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    // The inputs have left inbound/: archived, or deleted when rejected.
    expect(existsSync(join(dataDir, 'sftp', banner.username, 'inbound', 'valid.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'sftp', banner.username, 'inbound', 'malformed.json'))).toBe(false);
    expect(await countOrders()).toBe(3);
  });

  it('SIGKILL in the middle of a large file: after the restart it is ingested exactly once', async () => {
    const entries = 50_000;
    const before = await countOrders();
    const text = fill(JSON.stringify({ mid: '00000000-0000-4000-8000-000000000000', authorizationToken: 'Bearer REPLACE_WITH_ACCESS_TOKEN', cardTokens: [] }));
    const { authorizationToken } = JSON.parse(text) as { authorizationToken: string };
    const cardToken = fill('tok_REPLACE_WITH_CARD_TOKEN');
    const path = join(local, 'large.json');
    const out = createWriteStream(path);
    await writeBatch(out, { entries, mid: banner.mid, siteId: banner.siteId, authorizationToken, cardTokens: [cardToken], runId: `kill${kind}` });
    out.end();
    await once(out, 'finish');

    const daemon = await running();
    expect((await sftp(login(), [`put ${path} inbound/`])).status).toBe(0);
    await daemon.waitFor(/"msg":"batch ingest started"/);
    await new Promise((r) => setTimeout(r, 300));
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    expect(existsSync(join(outbound(), 'large.json.ack.json'))).toBe(false);

    const again = await running();
    await waitForFile(join(outbound(), 'large.json.ack.json'), 100_000);
    again.child.kill('SIGTERM');
    await again.exited;
    const ack = JSON.parse(readFileSync(join(outbound(), 'large.json.ack.json'), 'utf8'));
    expect(ack).toMatchObject({ status: 'accepted', counts: { entries, accepted: entries, rejected: 0 } });
    expect(await countOrders()).toBe(before + entries);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
