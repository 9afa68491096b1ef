// Webhooks through real processes: the daemon is SIGKILLed while its POSTs hang and events
// wait, and after a restart every event is delivered, verified by the receiver with the
// published standardwebhooks package; then the operator's commands (list, --failed, enable
// after a 410, replay) run as the CLI.
import { afterAll, describe, expect, it } from 'vitest';



import { Webhook } from 'standardwebhooks';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, type RunningDaemon } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { orderWithEvent, startReceiver, type Answer, type Received } from '../helpers/webhooks.ts';
import { waitFor } from '../helpers/wait.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/client.ts';
import { findMerchantByMid } from '../../src/db/queries/find-merchant.ts';

describe('rescued webhooks --help', () => {
  it.each([['webhooks'], ['webhooks', 'list'], ['webhooks', 'replay'], ['webhooks', 'enable']])('%s --help', async (...command) => {
    const res = await runCli([...command, '--help'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued webhooks/);
  });
});

describe.each(DB_KINDS)('webhooks end to end on %s', (kind) => {
  const dataDir = seededDataDir('rescued-webhooks-');
  const env: NodeJS.ProcessEnv = {
    RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false',
    RESCUED_WEBHOOKS_LEASE_SECONDS: '5', RESCUED_WEBHOOKS_TIMEOUT_MS: '2000', RESCUED_WEBHOOKS_POLL_INTERVAL_MS: '50',
  };
  let drop: (() => Promise<void>) | undefined;
  let answer: (n: number, r: Received) => Answer | number = () => 200;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let creds: Record<string, string>;
  afterAll(async () => {
    await receiver?.close();
    await drop?.();
  });

  /** Events written straight into the outbox, as the engine would (the daemon must not hold PGlite). */
  async function enqueue(n: number, type: 'order.completed' | 'order.expired' = 'order.completed'): Promise<string[]> {
    const database = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(dataDir), poolSize: 1, log: silentLog });
    try {
      const merchant = await findMerchantByMid(database.db, creds.mid!);
      const ids = [];
      for (let i = 0; i < n; i++) ids.push(await orderWithEvent(database.db, merchant!.id, type));
      return ids;
    } finally {
      await database.close();
    }
  }

  async function serve(): Promise<RunningDaemon> {
    const daemon = startDaemon(env);
    await daemon.waitFor(/"stage":"webhooks"/);
    return daemon;
  }

  async function stop(daemon: RunningDaemon) {
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  }

  const okFor = (id: string) => receiver.received.some((r, i) => r.headers['webhook-id'] === id && statuses[i] === 200);
  const statuses: number[] = [];
  const verify = (r: Received) => new Webhook(creds.webhookSecret!).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;

  it('delivers after a restart what was in flight or waiting when the daemon was killed', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    let release!: () => void;
    const hang = new Promise((r) => (release = () => r(undefined)));
    // The hung POSTs are answered (500, to a dead connection) only after the kill.
    answer = () => ({ status: 500, hold: hang });
    receiver = await startReceiver((n, r) => {
      const a = answer(n, r);
      statuses.push(typeof a === 'number' ? a : a.status);
      return a;
    });
    const add = await runCli(['merchant', 'add', '--name', 'Hooks Inc', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    creds = JSON.parse(add.stdout);
    const set = await runCli(['merchant', 'set-webhook', creds.mid!, receiver.url], env);
    expect(set.stdout, set.stderr).toContain(`webhook URL set: ${receiver.url}`);
    const inFlight = await enqueue(3);

    const first = await serve();
    await waitFor(() => receiver.received.length >= 3, { what: 'three POSTs hanging' });
    first.child.kill('SIGKILL');
    await first.exited;
    release();
    answer = () => 200;
    const waiting = await enqueue(2, 'order.expired');

    const second = await serve();
    await waitFor(() => [...inFlight, ...waiting].every(okFor), { what: 'every event answered 200', timeoutMs: 60_000 });
    await stop(second);
    for (const r of receiver.received) expect(verify(r)).toMatchObject({ IsResent: false });
    const list = await runCli(['webhooks', 'list', '--json', '--merchant', creds.mid!], env);
    expect(list.status, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    // --mid, the flag of earlier releases, still reads the same, and is no longer listed.
    expect((await runCli(['webhooks', 'list', '--json', '--mid', creds.mid!], env)).stdout).toBe(list.stdout);
    const help = (await runCli(['webhooks', 'list', '--help'], env)).stdout;
    expect(help).toContain('--merchant <mid>');
    expect(help).not.toContain('--mid');
    expect(rows.map((d) => d.webhookId).sort()).toEqual([...inFlight, ...waiting].sort());
    // The POSTs cut off by the kill were never recorded: each delivery has its one accepted attempt.
    for (const d of rows) expect(d).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200 });
  });

  it('list --failed, enable after a 410, and replay with IsResent: true, from the command line', async () => {
    answer = () => 410;
    const [gone] = await enqueue(1);
    const daemon = await serve();
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === gone), { what: 'the 410' });
    // Stopping drains: the answer is recorded before the process exits.
    await stop(daemon);
    expect(JSON.parse((await runCli(['merchant', 'show', creds.mid!], env)).stdout).webhook).toMatchObject({ enabled: false });

    const failed = await runCli(['webhooks', 'list', '--failed'], env);
    expect(failed.status, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(new RegExp(`${gone}\\s+order.completed\\s+pending\\s+attempts 1  last HTTP 410 next when enabled`));
    expect(failed.stdout.trim().split('\n')).toHaveLength(1);

    answer = () => 200;
    const enable = await runCli(['webhooks', 'enable', creds.mid!], env);
    expect(enable.stdout, enable.stderr).toMatch(/^webhook endpoint [0-9a-f-]{36} of [0-9a-f-]{36} enabled \(http:\/\/127\.0\.0\.1:\d+\/hooks\); 1 deliveries waiting\n$/);
    const firstEvent = receiver.received[0]!.headers['webhook-id'] as string;
    const replay = await runCli(['webhooks', 'replay', firstEvent], env);
    expect(replay.stdout, replay.stderr).toMatch(new RegExp(`^replayed 1 of 1 event\\(s\\)\\n[0-9a-f-]{36}  ${firstEvent}\\n$`));

    const again = await serve();
    await waitFor(() => okFor(gone!), { what: 'the 410 event delivered after enable' });
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === firstEvent && verify(r).IsResent === true), { what: 'the replay' });
    await stop(again);
    expect((await runCli(['webhooks', 'list', '--failed'], env)).stdout).toBe('(no deliveries)\n');

    const unknown = await runCli(['webhooks', 'replay', 'msg_00000000000000000000000000000000'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('rescued: No webhook delivery or event msg_00000000000000000000000000000000.\n');
    const notMerchant = await runCli(['webhooks', 'enable', '00000000-0000-4000-8000-000000000000'], env);
    expect(notMerchant.stderr).toBe('rescued: No webhook endpoint or merchant 00000000-0000-4000-8000-000000000000.\n');
  });

  it('set-webhook refuses an unsafe destination with a clear error', async () => {
    const res = await runCli(['merchant', 'set-webhook', creds.mid!, 'http://169.254.169.254/latest/meta-data'], env);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('rescued: 169.254.169.254 is a linkLocal address; webhooks go only to public addresses.\n');
    const prod = await runCli(['merchant', 'set-webhook', creds.mid!, 'http://hooks.example.com/'], { ...env, RESCUED_MODE: 'production' });
    expect(prod.status).not.toBe(0);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
