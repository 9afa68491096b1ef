// The operator's CLI: onboarding prints the credentials once, later commands never print a
// secret again, and every command has --help. The commands run in-process on one open
// database per kind (the command tree of src/main.ts, output and exit status captured); the
// real entry point is run as a process for its help, its exit status and its error output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { cli, tempDir } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { pgliteDirFor } from '../../src/db/client.ts';

const COMMANDS = [[], ['serve'], ['migrate'], ['merchant'], ['merchant', 'add'], ['merchant', 'list'], ['merchant', 'show'], ['merchant', 'disable'], ['merchant', 'add-key'], ['merchant', 'allow-ip'], ['merchant', 'set-webhook'], ['merchant', 'rotate-secret'], ['merchant', 'rotate-tokenization-key'], ['vault'], ['vault', 'rotate'], ['orders'], ['orders', 'show'], ['webhooks'], ['webhooks', 'list'], ['webhooks', 'replay'], ['webhooks', 'enable']];

describe('rescued --help', () => {
  it.each(COMMANDS.map((c) => [c.join(' ') || '(root)', c]))('%s --help', async (_name, command) => {
    const res = await runCli([...(command as string[]), '--help'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued/);
  });
});

describe('rescued as a process', () => {
  it('--help prints the usage on stdout and exits 0', () => {
    const res = cli(['--help'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued/);
  });

  it('a configuration error is one line on stderr and exit status 78', () => {
    const res = cli(['merchant', 'list'], { RESCUED_MODE: 'bogus' });
    expect(res.status).toBe(78);
    expect(res.stderr).toMatch(/^rescued: configuration error: .*mode/);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stdout).toBe('');
  });

  it('an unknown command is a usage error, not a crash', () => {
    const res = cli(['merchant', 'frobnicate'], {});
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});

describe.each(DB_KINDS)('rescued merchant … on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let db: TestDatabase;
  let creds: Record<string, string>;
  const run = (args: string[], e: NodeJS.ProcessEnv) => runCli(args, e, db.database);

  beforeAll(async () => {
    db = await freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir), poolSize: 1 });
    if (db.url) env.DATABASE_URL = db.url;
    const add = await run(['merchant', 'add', '--name', 'Acme Rebills', '--site-url', 'https://acme.example', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    creds = JSON.parse(add.stdout);
  });
  afterAll(async () => {
    await db?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('add prints mid, siteId, API client, tokenization key and webhook secret once', async () => {
    expect(creds.mid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(creds.siteId).toMatch(/^[0-9a-f-]{36}$/);
    expect(creds.clientId).toMatch(/^rc_/);
    expect(creds.clientSecret).toMatch(/^rcs_/);
    expect(creds.tokenizationKey).toMatch(/^rtk_/);
    expect(creds.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('list and show describe the merchant without any secret', async () => {
    const list = await run(['merchant', 'list'], env);
    expect(list.stdout).toContain(creds.mid);
    const show = await run(['merchant', 'show', creds.mid!], env);
    expect(show.status, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown).toMatchObject({ mid: creds.mid, name: 'Acme Rebills', status: 'active', sites: [{ siteId: creds.siteId, url: 'https://acme.example' }], apiClients: [{ clientId: creds.clientId }] });
    for (const secret of [creds.clientSecret, creds.tokenizationKey, creds.webhookSecret]) expect(show.stdout + list.stdout).not.toContain(secret);
  });

  it('add-key registers a real OpenSSH key once, allow-ip a range, set-webhook a URL', async () => {
    const dir = tempDir('rescued-cli-key-');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'acme-sftp', '-f', join(dir, 'id')]);
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'id.pub')]).toString().split(' ')[1];
    const first = await run(['merchant', 'add-key', creds.mid!, join(dir, 'id.pub')], env);
    expect(first.stdout).toContain(`added: ssh-ed25519 ${fp}`);
    expect((await run(['merchant', 'add-key', creds.mid!, join(dir, 'id.pub')], env)).stdout).toContain('already registered');
    const priv = await run(['merchant', 'add-key', creds.mid!, join(dir, 'id')], env);
    expect(priv.status).toBe(1);
    expect(priv.stderr).toContain('does not hold an OpenSSH public key');
    expect((await run(['merchant', 'allow-ip', creds.mid!, '203.0.113.0/24'], env)).stdout).toContain('allowed: 203.0.113.0/24');
    expect((await run(['merchant', 'allow-ip', creds.mid!, '203.0.113.1/24'], env)).status).toBe(1);
    expect((await run(['merchant', 'set-webhook', creds.mid!, 'https://acme.example/hooks'], env)).stdout).toContain('webhook URL set: https://acme.example/hooks');
    const shown = JSON.parse((await run(['merchant', 'show', creds.mid!], env)).stdout);
    expect(shown.sftp).toMatchObject({ keys: [{ algorithm: 'ssh-ed25519', fingerprint: fp, comment: 'acme-sftp' }], allowedCidrs: ['203.0.113.0/24'] });
    expect(shown.webhook).toMatchObject({ url: 'https://acme.example/hooks', enabled: true });
  });

  it('rotate-secret prints a new webhook secret once; --api-client a new client', async () => {
    const rot = await run(['merchant', 'rotate-secret', creds.mid!], env);
    expect(rot.status, rot.stderr).toBe(0);
    const [, secret] = /webhook secret: (whsec_\S+)/.exec(rot.stdout)!;
    expect(secret).not.toBe(creds.webhookSecret);
    const api = await run(['merchant', 'rotate-secret', creds.mid!, '--api-client'], env);
    const [, clientId] = /API client id:\s+(rc_\S+)/.exec(api.stdout)!;
    expect(JSON.parse((await run(['merchant', 'show', creds.mid!], env)).stdout).apiClients).toEqual([{ clientId, createdAt: expect.any(String) }]);
  });

  it('disable marks the merchant disabled; unknown mids are a clear error', async () => {
    expect((await run(['merchant', 'disable', creds.mid!], env)).status).toBe(0);
    expect(JSON.parse((await run(['merchant', 'show', creds.mid!], env)).stdout).status).toBe('disabled');
    const missing = await run(['merchant', 'show', '00000000-0000-4000-8000-000000000000'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('rescued: No merchant with mid 00000000-0000-4000-8000-000000000000.\n');
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, database: db.database, logs: '' });
  });
});
