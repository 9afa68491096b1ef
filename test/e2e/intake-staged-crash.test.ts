// A large file's staged ingest killed in its middle: the daemon is SIGKILLed after its first
// committed transaction (intake.pauseAfterCommitMs holds it there, a state the test sees in
// its log), and the restarted daemon resumes the same batch from the first entry not
// committed — one batch row, every entry stored once, one ack for the whole file.
import { afterAll, describe, expect, it } from 'vitest';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { waitFor } from '../helpers/wait.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { writeBatch } from '../../samples/generate-batch.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openCore } from '../../src/core.ts';
import { batches, orders } from '../../src/db/schema.ts';

const ENTRIES = 2_000;
const COMMIT = 500;

describe.each(DB_KINDS)('a staged ingest killed in its middle, on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-staged-');
  const local = tempDir('rescued-e2e-staged-local-');
  const env: NodeJS.ProcessEnv = {
    RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '100', RESCUED_ENGINE_ENABLED: 'false',
    RESCUED_INTAKE_STAGED_COMMIT_ENTRIES: String(COMMIT),
  };
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  async function started(extra: NodeJS.ProcessEnv = {}): Promise<RunningDaemon> {
    const daemon = startDaemon({ ...env, ...extra });
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    return daemon;
  }

  it('resumes the batch after a restart: one batch, each entry once, the ack once', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const first = await started({ RESCUED_INTAKE_PAUSE_AFTER_COMMIT_MS: '600000' });
    const [, clientId, secret] = await first.waitFor(/curl -s -u '([^:]+):([^']+)'/, 'stderr');
    const [, mid] = await first.waitFor(/mid\s+([0-9a-f-]{36})/, 'stderr');
    const [, siteId] = await first.waitFor(/siteId\s+([0-9a-f-]{36})/, 'stderr');
    const [, username] = await first.waitFor(/sftp -P \d+ -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
    const [, base] = await first.waitFor(/"address":"(http:\/\/[^"]+)"/);
    const [, tokenizationKey] = await first.waitFor(/tokenization key\s+(\S+)/, 'stderr');
    const auth = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: clientId, appSecret: secret }) });
    const { access_token: token } = (await auth.json()) as { access_token: string };
    const tokenized = await fetch(`${base}/v1/tokenize?mid=${mid}&environment=${tokenizationKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2030' } } }),
    });
    const card = ((await tokenized.json()) as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;

    // Over 1 MiB (about 1.8 KB an entry): ingested in stages.
    const path = join(local, 'big.json');
    const out = createWriteStream(path);
    await writeBatch(out, { entries: ENTRIES, mid: mid!, siteId: siteId!, authorizationToken: `Bearer ${token}`, cardTokens: [card], runId: `staged${kind}`, expiryDateUtc: new Date(Date.now() + 20 * 86_400_000).toISOString() });
    out.end();
    await once(out, 'finish');
    const userDir = join(dataDir, 'sftp', username!);
    for (const folder of ['inbound', 'outbound']) mkdirSync(join(userDir, folder), { recursive: true });
    const inbound = join(userDir, 'inbound', 'big.json');
    const ackPath = join(userDir, 'outbound', 'big.json.ack.json');
    renameSync(path, inbound);

    const [line] = await first.waitFor(/\{[^\n]*"msg":"batch entries committed; pausing[^\n]*\}/, 'stdout', 120_000);
    const paused = JSON.parse(line!) as { batchId: string; entries: number; total: number };
    expect(paused.entries).toBeGreaterThan(0);
    expect(paused.entries).toBeLessThan(ENTRIES);
    expect(paused.total).toBe(ENTRIES);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(inbound)).toBe(true);
    expect(existsSync(ackPath)).toBe(false);

    const second = await started();
    const ack = await waitFor(() => existsSync(ackPath) && (JSON.parse(readFileSync(ackPath, 'utf8')) as { batchId: string; status: string; counts: Record<string, number>; accepted: unknown[] }), { what: 'the ack of big.json', timeoutMs: 120_000 });
    expect(ack).toMatchObject({ batchId: paused.batchId, status: 'accepted', counts: { entries: ENTRIES, accepted: ENTRIES, rejected: 0 } });
    expect(ack.accepted).toHaveLength(ENTRIES);
    await second.waitFor(new RegExp(`"resumedAt":${paused.entries}[^\\n]*"msg":"batch ingest started"`));
    // The ack is published before the input leaves inbound/; "batch ingested" is logged after.
    await second.waitFor(/"msg":"batch ingested"/);
    expect(existsSync(inbound)).toBe(false);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);

    const core = await openCore(loadConfig({ env }), silentLog);
    try {
      const db = core.database.db;
      expect(await db.select({ id: batches.id, status: batches.status, entries: batches.entryCount }).from(batches).where(eq(batches.fileName, 'big.json'))).toEqual([{ id: paused.batchId, status: 'accepted', entries: ENTRIES }]);
      const [stored] = await db.select({ n: sql<number>`count(*)::int`, ids: sql<number>`count(distinct ${orders.orderId})::int`, seqs: sql<number>`count(distinct ${orders.sequenceNumber})::int` }).from(orders).where(eq(orders.batchId, paused.batchId));
      expect(stored).toEqual({ n: ENTRIES, ids: ENTRIES, seqs: ENTRIES });
    } finally {
      await core.database.close();
    }
  }, 300_000);

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
