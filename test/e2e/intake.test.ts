// Batch intake as a merchant meets it: credentials from the sandbox banner, a card
// tokenized over HTTP, the sample batch put with the OpenSSH client, the acknowledgement
// fetched back over SFTP, and the orders in the database after the daemon stops. Then a
// SIGKILL in the middle of a larger file — once the daemon says it has stored some of its
// entries (a file this large is committed in chunks, src/intake/staged.ts) — and after the
// restart it is ingested exactly once: the committed part kept, the rest stored.
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
import { waitFor } from '../helpers/wait.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/client.ts';
import { orders } from '../../src/db/schema.ts';
import { writeBatch } from '../../samples/generate-batch.ts';
import { SAMPLE_SITE_ID } from '../helpers/intake.ts';

const SAMPLES = join(import.meta.dirname, '../../samples/batches');

const waitForFile = (path: string, timeoutMs = 60_000) => waitFor(() => existsSync(path), { what: path, timeoutMs });

interface Shown {
  status: string;
  progress: { decided: number } | null;
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
  let accessToken: string;

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
    accessToken = access_token;
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

  /**
   * A file as the running daemon shows it while ingesting it: its own count, from its memory,
   * updated after every chunk stored. On PGlite through `batches show --json`, which the CLI
   * hands to the daemon over its socket (the file's transaction holds the only connection);
   * on PostgreSQL through GET /v1/batches (the merchant's view; the pool's other connections
   * answer the API while the file's transaction is open).
   */
  async function shownByDaemon(daemon: RunningDaemon, name: string): Promise<Shown | undefined> {
    if (kind === 'pglite') {
      const res = await runCli(['batches', 'show', name, '--json'], env);
      return res.status === 0 ? (JSON.parse(res.stdout) as Shown) : undefined;
    }
    const [, base] = await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/);
    const res = await fetch(`${base}/v1/batches`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { batches: Array<Shown & { fileName: string }> }).batches.find((b) => b.fileName === name);
  }

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

  // The bounds are a loaded machine's: two ingests of the file on PGlite take a minute there.
  it('SIGKILL in the middle of a large file: after the restart it is ingested exactly once', { timeout: 240_000 }, async () => {
    // Twenty chunks (intake's 1,000 entries each): the kill comes once one is stored.
    const entries = 20_000;
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
    const atKill = await waitFor(async () => {
      const shown = await shownByDaemon(daemon, 'large.json');
      return shown?.status === 'ingesting' && shown.progress!.decided > 0 && shown;
    }, { what: 'large.json being ingested with entries stored', timeoutMs: 120_000, detail: () => daemon.stdout().slice(-3000) });
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    expect(atKill.progress!.decided).toBeLessThan(entries);
    expect(existsSync(join(outbound(), 'large.json.ack.json'))).toBe(false);
    // What was committed stays (the staged ingest resumes after it); not the whole file.
    expect(await countOrders()).toBeLessThan(before + entries);

    const again = await running();
    await waitForFile(join(outbound(), 'large.json.ack.json'), 180_000);
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
