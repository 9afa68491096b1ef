// SIGKILL between the processor's answer and its recording: the restarted daemon reclaims the
// order once its lease has run out, calls the processor again with the same idempotency key,
// gets the stored answer, and records one charge. engine.pauseAfterAnswerMs opens the window.
import { afterAll, describe, expect, it } from 'vitest';



import { eq } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { insertTestOrders } from '../helpers/engine.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openCore } from '../../src/core.ts';
import { attempts, orders, processorCalls } from '../../src/db/schema.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';

describe.each(DB_KINDS)('a crash between answer and commit on %s', (kind) => {
  const dataDir = seededDataDir('rescued-crash-');
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  afterAll(async () => drop?.());

  it('charges once after a restart', async () => {
    const env: NodeJS.ProcessEnv = {
      RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false', RESCUED_LOG_LEVEL: 'debug',
      RESCUED_ENGINE_POLL_INTERVAL_MS: '100', RESCUED_ENGINE_LEASE_SECONDS: '5', RESCUED_ENGINE_SWEEP_CRON: '* * * * * *',
    };
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      drop = server.drop;
      env.DATABASE_URL = server.url;
      databaseUrl = server.url;
    }
    // A merchant, a test card and one order due now, written before the daemon starts.
    const card = sandboxTestCards().find('4111111111111111')!;
    const core = await openCore(loadConfig({ env }), silentLog);
    let id: string;
    try {
      const creds = await core.merchants.add({ name: 'Crash Test' });
      const merchantId = (await core.merchants.byMid(creds.mid)).id;
      const token = (await core.vault.tokenize(merchantId, { number: card.number, month: 12, year: 2035, firstName: 'A', lastName: 'B' })).card.token;
      const now = Date.now();
      [id] = (await insertTestOrders(core.database.db, [
        { card, token, merchantId, createdAt: new Date(now - 86_400_000), expiresAt: new Date(now + 10 * 86_400_000), status: 'PENDING', nextAttemptAt: new Date(now - 1000) },
      ])) as [string];
    } finally {
      await core.database.close();
    }

    const first = startDaemon({ ...env, RESCUED_ENGINE_PAUSE_AFTER_ANSWER_MS: '600000' });
    await first.waitFor(new RegExp(`"orderSessionKey":"${id}".*pausing before recording`));
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = startDaemon(env);
    const [line] = await second.waitFor(new RegExp(`\\{[^\\n]*"orderSessionKey":"${id}"[^\\n]*"attempt finished"[^\\n]*\\}`));
    expect(JSON.parse(line)).toMatchObject({ attemptNo: 1, outcome: 'approved', replayed: true });
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const after = await openCore(loadConfig({ env }), silentLog);
    try {
      const db = after.database.db;
      const calls = await db.select().from(processorCalls).where(eq(processorCalls.reference, id));
      expect(calls.map((c) => [c.idempotencyKey, c.operation, c.approved])).toEqual([[`${id}:1`, 'authorize', true]]);
      const rows = await db.select().from(attempts).where(eq(attempts.orderSessionKey, id));
      expect(rows.map((a) => [a.attemptNo, a.status, a.processorRef])).toEqual([[1, 'approved', (calls[0]!.response as { processorRef: string }).processorRef]]);
      expect(await db.select().from(orders).where(eq(orders.id, id))).toMatchObject([{ status: 'APPROVED', attemptCount: 1, confirmationId: rows[0]!.processorRef }]);
    } finally {
      await after.database.close();
    }
  }, 90_000);

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl, logs: daemonLogs() });
  });
});
