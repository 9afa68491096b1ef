// The operator's CLI while `rescued serve` runs, on both databases: `merchant add-key` as a
// real process, then an upload with that key through OpenSSH `sftp`; other commands print the
// same beside the daemon as on the data alone once it has stopped; a socket file left by a
// killed process does not stand in the way. On PGlite the commands run inside the daemon,
// through its CLI socket; on PostgreSQL over the CLI's own connection.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { cli, daemonLogs, seededDataDir, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { asMerchant, evaluateBody, SOFT } from '../helpers/api.ts';
import { sftp, sshKey } from '../helpers/sftp.ts';
import { adminSocketPath } from '../../src/admin/protocol.ts';

interface Demo {
  mid: string;
  siteId: string;
  clientId: string;
  secret: string;
  tokenizationKey: string;
  sftpPort: number;
  username: string;
  base: string;
}

async function demoOf(daemon: RunningDaemon): Promise<Demo> {
  const [, mid] = await daemon.waitFor(/add-key ([0-9a-f-]{36}) /, 'stderr');
  const [, sftpPort, username] = await daemon.waitFor(/sftp -P (\d+) -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
  const [, clientId, secret] = await daemon.waitFor(/curl -s -u '([^:]+):([^']+)'/, 'stderr');
  const [, siteId] = await daemon.waitFor(/siteId\s+([0-9a-f-]{36})/, 'stderr');
  const [, tokenizationKey] = await daemon.waitFor(/tokenization key\s+(\S+)/, 'stderr');
  const [, base] = await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/);
  return { mid: mid!, siteId: siteId!, clientId: clientId!, secret: secret!, tokenizationKey: tokenizationKey!, sftpPort: Number(sftpPort), username: username!, base: base! };
}

/** A CIT order through the HTTP API, final at once: its `orders show` does not change afterwards. */
async function citOrder(d: Demo): Promise<string> {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    (await (await fetch(`${d.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
  const token = await post('/oauth2/token', { appKey: d.clientId, appSecret: d.secret });
  const card = { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', verification_value: '123', month: '12', year: '2035' };
  const tok = await post(`/v1/tokenize?mid=${d.mid}&environment=${encodeURIComponent(d.tokenizationKey)}`, { payment_method: { credit_card: card } });
  const cardToken = (tok.transaction as { payment_method: { token: string } }).payment_method.token;
  const cit = await post('/v1/evaluate', asMerchant(evaluateBody(cardToken, { tx: SOFT }), d), { authorization: `Bearer ${token.access_token as string}` });
  expect(cit.status).toBe('APPROVED');
  return cit.orderSessionKey as string;
}

describe.each(DB_KINDS)('the CLI beside rescued serve on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-beside-');
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  async function env(): Promise<NodeJS.ProcessEnv> {
    const base = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '200' };
    if (kind === 'pglite') return base;
    if (!drop) {
      const server = await createServerDatabase({ migrated: true });
      drop = server.drop;
      process.env.E2E_BESIDE_DB_URL = server.url;
    }
    return { ...base, DATABASE_URL: process.env.E2E_BESIDE_DB_URL };
  }

  it('merchant add-key (a real process) while the daemon runs, then sftp uploads with that key; commands print the same with the daemon stopped', async () => {
    const e = await env();
    const daemon = startDaemon(e);
    const d = await demoOf(daemon);
    if (kind === 'pglite') expect(daemon.stdout()).toMatch(/"stage":"admin","path":"[^"]+rescued\.sock"/);

    const keyDir = tempDir('rescued-e2e-beside-key-');
    const key = sshKey(keyDir);
    const added = cli(['merchant', 'add-key', d.mid, `${key.privatePath}.pub`], e);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added: ssh-ed25519 SHA256:\S+ id_ed25519@test\n$/);
    // On PGlite it ran inside the daemon, which logs the command (never its input).
    if (kind === 'pglite') await daemon.waitFor(/"component":"admin","command":"merchant add-key","exitCode":0/);

    const local = join(keyDir, 'rebills.json');
    writeFileSync(local, '{"requests":[]}');
    const up = await sftp({ port: d.sftpPort, username: d.username, key: key.privatePath }, [`put ${local} inbound/`, 'ls outbound']);
    expect(up.status, up.stderr).toBe(0);
    await daemon.waitFor(/"msg":"batch rejected"/);

    const orderKey = await citOrder(d);
    const commands = [['orders', 'show', orderKey], ['merchant', 'show', d.mid], ['processor', 'list', d.mid], ['webhooks', 'list', '--mid', d.mid]];
    const beside: CliResult[] = [];
    for (const args of commands) beside.push(await runCli(args, e));
    // The real entry point over the socket: its stdout and exit status are the command's.
    const spawned = cli(commands[0]!, e);
    expect({ status: spawned.status, stdout: spawned.stdout, stderr: spawned.stderr }).toEqual(beside[0]);
    expect(beside[0]!.stdout).toContain(`order ${orderKey}`);

    // The purge beside the daemon, whose own sweep is scheduled: on PGlite the daemon runs the
    // command, on PostgreSQL the command connects itself (and takes the purge's lock beside
    // the daemon's sweep). Nothing is old yet.
    await daemon.waitFor(/"stage":"retention","cron":"0 23 \* \* \* \*","msg":"stage started"/);
    const dry = await runCli(['purge', '--dry-run', '--json'], e);
    expect(dry.status, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, classes: { orders: { count: 0 }, cards: { count: 0 }, outboundFiles: { count: 0 } } });
    const purged = cli(['purge'], e);
    expect(purged.status, purged.stderr).toBe(0);
    expect(purged.stdout).toMatch(/^removed, counting back from \S+\nclass +older than +removed\norders +\S+ +0\n/);
    if (kind === 'pglite') await daemon.waitFor(/"component":"admin","command":"purge","exitCode":0/);

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    expect(existsSync(adminSocketPath(dataDir))).toBe(false);
    for (const [i, args] of commands.entries()) expect(await runCli(args, e), args.join(' ')).toEqual(beside[i]);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: (await env()).DATABASE_URL, logs: daemonLogs() });
  });
});

describe('a socket and lock left by a killed process', () => {
  it('do not stand in the way: the CLI works on the embedded database folder', async () => {
    const dataDir = seededDataDir('rescued-e2e-stale-');
    const path = adminSocketPath(dataDir);
    // A process that binds the socket path, takes the lock and is killed, as a daemon is by SIGKILL or the OOM killer.
    const killed = spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => { require('node:fs').writeFileSync(${JSON.stringify(join(dataDir, 'rescued.lock'))}, String(process.pid)); process.kill(process.pid, 'SIGKILL'); })`]);
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(path)).toBe(true);
    const res = await runCli(['merchant', 'list'], { RESCUED_DATA_DIR: dataDir });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe('(no merchants)\n');
  });
});
