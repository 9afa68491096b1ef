// A batch file that kills the daemon must not kill it again at every start (systemd's
// Restart= would make that a crash loop): the daemon is SIGKILLed twice while it ingests the
// same file, and the third start sets the file aside — a redacted copy in the quarantine, an
// ack with ERR_INTAKE_CRASHED, an error line — instead of reading it a third time. The kill
// moment is a state the test observes: the daemon's "batch ingest started" line, with the
// file's orders held back (on PostgreSQL by a lock on the orders table, on PGlite by the
// file's size).
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import postgres from 'postgres';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { waitFor } from '../helpers/wait.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { writeBatch } from '../../samples/generate-batch.ts';

interface Banner {
  mid: string;
  siteId: string;
  username: string;
  base: string;
  token: string;
}

describe.each(DB_KINDS)('a file the daemon dies in twice, on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-crashloop-');
  const local = tempDir('rescued-e2e-crashloop-local-');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '100', RESCUED_ENGINE_ENABLED: 'false' };
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  async function started(): Promise<RunningDaemon> {
    const daemon = startDaemon(env);
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    return daemon;
  }

  async function banner(daemon: RunningDaemon): Promise<Banner> {
    const [, clientId, secret] = await daemon.waitFor(/curl -s -u '([^:]+):([^']+)'/, 'stderr');
    const [, mid] = await daemon.waitFor(/mid\s+([0-9a-f-]{36})/, 'stderr');
    const [, siteId] = await daemon.waitFor(/siteId\s+([0-9a-f-]{36})/, 'stderr');
    const [, username] = await daemon.waitFor(/sftp -P \d+ -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
    const [, base] = await daemon.waitFor(/"address":"(http:\/\/[^"]+)"/);
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: clientId, appSecret: secret }) });
    const { access_token: token } = (await res.json()) as { access_token: string };
    return { mid: mid!, siteId: siteId!, username: username!, base: base!, token };
  }

  async function tokenized(b: Banner, tokenizationKey: string): Promise<string> {
    const res = await fetch(`${b.base}/v1/tokenize?mid=${b.mid}&environment=${tokenizationKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2030' } } }),
    });
    return ((await res.json()) as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;
  }

  async function batchFile(path: string, b: Banner, card: string, entries: number, runId: string): Promise<void> {
    const out = createWriteStream(path);
    await writeBatch(out, { entries, mid: b.mid, siteId: b.siteId, authorizationToken: `Bearer ${b.token}`, cardTokens: [card], runId });
    out.end();
    await once(out, 'finish');
  }

  /** Keeps the daemon's ingest from storing any order until released (PostgreSQL only). */
  async function holdOrders(): Promise<() => Promise<void>> {
    if (kind !== 'postgres') return async () => {};
    const sql = postgres(env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const held = await sql.reserve();
    await held`begin`;
    await held`lock table orders in access exclusive mode`;
    return async () => {
      await held`rollback`.catch(() => undefined);
      held.release();
      await sql.end();
    };
  }

  /** Starts the daemon, waits until it is inside the file's ingest, and kills it there. */
  async function dieInIngest(place?: () => void): Promise<void> {
    const daemon = await started();
    const release = await holdOrders();
    try {
      place?.();
      await daemon.waitFor(/"msg":"batch ingest started"/, 'stdout', 120_000);
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    } finally {
      await release();
    }
  }

  it('is ingested at the first two starts, and set aside at the third: quarantined, an ack, an alert', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const first = await started();
    const b = await banner(first);
    const [, tokenizationKey] = await first.waitFor(/tokenization key\s+(\S+)/, 'stderr');
    const card = await tokenized(b, tokenizationKey!);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    // PGlite has no lock to hold the ingest with: the file is large enough to outlast the kill.
    const path = join(local, 'killer.json');
    await batchFile(path, b, card, kind === 'postgres' ? 2_000 : 30_000, `crash${kind}`);
    const userDir = join(dataDir, 'sftp', b.username);
    for (const folder of ['inbound', 'outbound']) mkdirSync(join(userDir, folder), { recursive: true });
    const ackPath = join(userDir, 'outbound', 'killer.json.ack.json');

    await dieInIngest(() => copyFileSync(path, join(userDir, 'inbound', 'killer.json')));
    await dieInIngest();
    expect(existsSync(ackPath)).toBe(false);

    const third = await started();
    const ack = await waitFor(() => existsSync(ackPath) && (JSON.parse(readFileSync(ackPath, 'utf8')) as Record<string, unknown>), { what: 'the ack of killer.json', timeoutMs: 60_000 });
    expect(ack).toMatchObject({ status: 'rejected', input: 'quarantined', counts: { entries: 0, accepted: 0, rejected: 0 }, error: { code: 'ERR_INTAKE_CRASHED' } });
    await third.waitFor(/"level":"error".*"code":"ERR_INTAKE_CRASHED".*"msg":"batch file quarantined: the daemon stopped twice while ingesting it"/);
    expect(existsSync(join(userDir, 'inbound', 'killer.json'))).toBe(false);
    const quarantined = readdirSync(join(dataDir, 'quarantine', b.mid), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(quarantined.map((e) => e.name)).toEqual([expect.stringMatching(/-killer\.json$/)]);
    expect(third.stdout()).not.toMatch(/"msg":"batch ingest started"/);

    // The count was for that file: a new one under the same name is ingested as usual.
    const small = join(local, 'small.json');
    await batchFile(small, b, card, 3, `crash${kind}-again`);
    writeFileSync(join(userDir, 'inbound', 'killer.json'), readFileSync(small));
    await waitFor(() => existsSync(ackPath) && (JSON.parse(readFileSync(ackPath, 'utf8')) as { status: string }).status === 'accepted', { what: 'an accepted ack for the new killer.json' });
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
