// docs/operations.md's backup and restore, run on both databases: a merchant with a webhook
// endpoint, a tokenized card and an MIT order written through the CLI and the API; the backup
// taken as the doc says (pg_dump of the database, a copy of the configuration with its key
// rings, a tar of the SFTP folder with its host keys; on PGlite a tar of the whole data folder,
// the daemon stopped); restored into a fresh database and a
// fresh data folder; and the daemon carrying on there: the order is there and is cancelled,
// the card decrypts for a new charge, the webhook verifies with the secret printed before the
// backup, and the SFTP server presents the same host keys.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DB_KINDS, createServerDatabase, seedPgliteDir } from '../helpers/db.ts';
import { pgliteDirFor } from '../../src/db/client.ts';
import { startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';
import { key32 } from '../helpers/keys.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { evaluateBody, SOFT } from '../helpers/api.ts';
import { merchantClient as client } from '../helpers/merchant-client.ts';
import { waitFor } from '../helpers/wait.ts';

type Json = Record<string, unknown>;

function run(cmd: string, args: string[]): void {
  const res = spawnSync(cmd, args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${res.stderr}`);
}

async function httpBase(daemon: RunningDaemon): Promise<string> {
  const [, base] = await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/);
  return base!;
}

const hostKeysOf = async (daemon: RunningDaemon) => JSON.parse((await daemon.waitFor(/"stage":"sftp".*"hostKeys":(\[[^\]]*\])/))[1]!) as unknown;

describe.each(DB_KINDS)('backup and restore on %s', (kind) => {
  const drops: Array<() => Promise<void>> = [];
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await receiver?.close();
    for (const drop of drops) await drop();
  });

  it('a restored backup carries on: orders, vault cards, webhook secrets, SFTP host keys', async () => {
    const work = tempDir('rescued-backup-');
    const etc = join(work, 'etc');
    mkdirSync(etc);
    writeFileSync(join(etc, 'rescued.json'), JSON.stringify({
      auth: { signingKeys: { k1: key32() }, activeSigningKeyId: 'k1' },
      vault: { keys: { v1: key32() }, activeKeyId: 'v1', fingerprintKey: key32() },
    }), { mode: 0o600 });
    const common = { RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0', RESCUED_WEBHOOKS_POLL_INTERVAL_MS: '50' };
    const before: NodeJS.ProcessEnv = { ...common, RESCUED_CONFIG: join(etc, 'rescued.json'), RESCUED_DATA_DIR: join(work, 'data') };
    if (kind === 'postgres') {
      const source = await createServerDatabase({ migrated: true });
      drops.push(source.drop);
      before.DATABASE_URL = source.url;
    } else {
      seedPgliteDir(pgliteDirFor(before.RESCUED_DATA_DIR!));
    }

    receiver = await startReceiver(() => 200);
    const add = await runCli(['merchant', 'add', '--name', 'Backup Inc', '--json'], before);
    expect(add.status, add.stderr).toBe(0);
    const creds = JSON.parse(add.stdout) as Record<string, string>;
    expect((await runCli(['merchant', 'set-webhook', creds.mid!, receiver.url], before)).status).toBe(0);

    const first = startDaemon(before);
    const base = await httpBase(first);
    const keysBefore = await hostKeysOf(first);
    const api = client(base, creds);
    const cardToken = await api.tokenize('4111111111111111');
    const mit = await api.call('/evaluate', evaluateBody(cardToken, { mit: true }));
    const orderKey = mit.json.orderSessionKey as string;
    await waitFor(async () => (await api.call('/v1/outcome', { orderSessionKey: orderKey })).json.status !== 'SUBMITTED', { what: 'the MIT order planned' });
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    // The backup, as docs/operations.md says: the database (on PGlite, the whole data folder,
    // the daemon stopped), the configuration, the SFTP folder.
    const backup = join(work, 'backup');
    mkdirSync(backup);
    if (kind === 'postgres') run('pg_dump', ['--format=custom', `--file=${join(backup, 'rescued.dump')}`, before.DATABASE_URL!]);
    cpSync(etc, join(backup, 'etc'), { recursive: true });
    run('tar', ['-C', join(work, 'data'), '-czf', join(backup, 'data.tgz'), ...(kind === 'postgres' ? ['sftp'] : ['.'])]);

    // The restore: a fresh database and data folder.
    const dataDir = join(work, 'restored');
    mkdirSync(dataDir, { mode: 0o700 });
    run('tar', ['-C', dataDir, '-xzf', join(backup, 'data.tgz')]);
    const after: NodeJS.ProcessEnv = { ...common, RESCUED_CONFIG: join(backup, 'etc/rescued.json'), RESCUED_DATA_DIR: dataDir };
    if (kind === 'postgres') {
      const target = await createServerDatabase();
      drops.push(target.drop);
      run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${target.url}`, join(backup, 'rescued.dump')]);
      after.DATABASE_URL = target.url;
    }

    const second = startDaemon(after);
    const api2 = client(await httpBase(second), creds);
    expect(await hostKeysOf(second)).toEqual(keysBefore);
    // The order is there, and carries on: the merchant cancels it, which sends a webhook.
    const shown = await runCli(['orders', 'show', orderKey, '--json'], after);
    expect(shown.status, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as Json).status).toBe('PENDING');
    const cancelled = await api2.call(`/v1/orders/${orderKey}/cancel`, {});
    expect(cancelled.json.status).toBe('CANCELLED');
    const hook = await waitFor(() => receiver!.received.find((r) => r.body.includes(orderKey)), { what: 'the order.cancelled webhook' });
    const payload = new Webhook(creds.webhookSecret!).verify(hook.body, hook.headers as Record<string, string>) as Json;
    expect(payload).toMatchObject({ OrderId: orderKey, Event: 'ORDER CANCELLED' });
    // The vault card decrypts: the sandbox processor charges it for a new CIT decision.
    const cit = await api2.call('/v1/evaluate', evaluateBody(cardToken, { tx: SOFT }));
    expect(cit.json).toMatchObject({ result: 'Success', status: 'APPROVED' });
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
