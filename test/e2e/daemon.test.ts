// `npm start` as a merchant or operator meets it: a fresh data folder, the demo merchant's
// printed credentials used with the printed token requests, Ctrl-C, and a restart.
import { afterAll, describe, expect, it } from 'vitest';



import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { cli, daemonLogs, seededDataDir, startDaemon, tempDir } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';

async function tokenBothForms(base: string, clientId: string, secret: string) {
  const basic = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const json = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: clientId, appSecret: secret }) });
  return [basic, json];
}

describe.each(DB_KINDS)('rescued serve on %s', (kind) => {
  const dataDir = tempDir('rescued-e2e-');
  let dropDb: (() => Promise<void>) | undefined;
  afterAll(async () => dropDb?.());

  async function env(): Promise<NodeJS.ProcessEnv> {
    if (kind === 'pglite') return { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0' };
    if (!dropDb) {
      const server = await createServerDatabase();
      dropDb = server.drop;
      process.env.E2E_DB_URL = server.url;
    }
    return { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', DATABASE_URL: process.env.E2E_DB_URL };
  }

  it('starts, creates and prints a demo merchant whose credentials obtain tokens, and exits 0 on Ctrl-C within 5 s', async () => {
    const daemon = startDaemon(await env());
    const [, clientId, secret] = await daemon.waitFor(/curl -s -u '([^:]+):([^']+)'/, 'stderr');
    const [, base] = await daemon.waitFor(/"address":"(http:\/\/[^"]+)"/);
    expect(daemon.stdout()).toContain(`"database":"${kind}"`);
    for (const res of await tokenBothForms(base!, clientId!, secret!)) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    }
    const t0 = Date.now();
    daemon.child.kill('SIGINT');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
    // stdout is a pipe, not a terminal: every line is JSON (log.format auto), with its
    // component once, and the secret printed once never reached the log.
    const lines = daemon.stdout().trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    for (const line of lines) expect(line.split('"component":').length).toBeLessThanOrEqual(2);
    expect(daemon.stdout()).not.toContain(secret!);
    // One line per HTTP request, once answered: the two token requests, nothing else about them.
    const tokenLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => typeof e.url === 'string' && e.url.includes('/oauth2/token'));
    expect(tokenLines).toHaveLength(2);
    for (const e of tokenLines) expect(e).toMatchObject({ component: 'http', msg: 'request', method: 'POST', status: 200 });
  });

  it('keeps its data over a restart and does not create a second demo merchant', async () => {
    const daemon = startDaemon(await env());
    await daemon.waitFor(/"stage":"http".*"stage started"|"msg":"stage started".*"stage":"http"/);
    await daemon.waitFor(/"address":"http/);
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    expect(daemon.stderr()).not.toContain('demo merchant was created');
    const list = await runCli(['merchant', 'list', '--json'], await env());
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'Demo Merchant', status: 'active' })]);
  });


  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: kind === 'postgres' ? process.env.E2E_DB_URL : undefined, logs: daemonLogs() });
  });
});

describe('signals during start-up', () => {
  it('a SIGTERM while the stages start waits for them and drains: exit 0', async () => {
    // Start-up from a migrated folder: the signal arrives while the later stages start.
    const dataDir = seededDataDir('rescued-early-');
    const daemon = startDaemon({ RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0' });
    await daemon.waitFor(/"stage":"storage"/);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(daemon.stdout()).toMatch(/"msg":"stopped"/);
  });
});

describe('embedded database lock', () => {
  it('refuses a second daemon, and migrate, on the same PGlite data folder with a clear message; other commands run through the first', async () => {
    const dataDir = seededDataDir('rescued-lock-');
    const daemon = startDaemon({ RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0' });
    await daemon.waitFor(/"address":"http/);
    const second = cli(['serve'], { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0' });
    const migrate = cli(['migrate'], { RESCUED_DATA_DIR: dataDir });
    const list = cli(['merchant', 'list'], { RESCUED_DATA_DIR: dataDir });
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    for (const res of [second, migrate]) {
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(/the embedded database is in use by process \d+/);
    }
    expect(list.status, list.stderr).toBe(0);
    expect(cli(['merchant', 'list'], { RESCUED_DATA_DIR: dataDir }).status).toBe(0);
  });
});
