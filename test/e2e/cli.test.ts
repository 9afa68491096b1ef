// The operator's CLI, run as a process: onboarding prints the credentials once, later
// commands never print a secret again, and every command has --help.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { cli } from '../helpers/daemon.ts';

const COMMANDS = [[], ['serve'], ['migrate'], ['merchant'], ['merchant', 'add'], ['merchant', 'list'], ['merchant', 'show'], ['merchant', 'disable'], ['merchant', 'add-key'], ['merchant', 'allow-ip'], ['merchant', 'set-webhook'], ['merchant', 'rotate-secret'], ['vault'], ['vault', 'rotate']];

describe('rescued --help', () => {
  it.each(COMMANDS.map((c) => [c.join(' ') || '(root)', c]))('%s --help', (_name, command) => {
    const res = cli([...(command as string[]), '--help'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued/);
  });
});

describe.each(DB_KINDS)('rescued merchant … on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let drop: (() => Promise<void>) | undefined;
  let creds: Record<string, string>;

  beforeAll(async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase();
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const add = cli(['merchant', 'add', '--name', 'Acme Rebills', '--site-url', 'https://acme.example', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    creds = JSON.parse(add.stdout);
  });
  afterAll(async () => drop?.());

  it('add prints mid, siteId, API client, tokenization key and webhook secret once', () => {
    expect(creds.mid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(creds.siteId).toMatch(/^[0-9a-f-]{36}$/);
    expect(creds.clientId).toMatch(/^rc_/);
    expect(creds.clientSecret).toMatch(/^rcs_/);
    expect(creds.tokenizationKey).toMatch(/^rtk_/);
    expect(creds.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('list and show describe the merchant without any secret', () => {
    const list = cli(['merchant', 'list'], env);
    expect(list.stdout).toContain(creds.mid);
    const show = cli(['merchant', 'show', creds.mid!], env);
    expect(show.status, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown).toMatchObject({ mid: creds.mid, name: 'Acme Rebills', status: 'active', sites: [{ siteId: creds.siteId, url: 'https://acme.example' }], apiClients: [{ clientId: creds.clientId }] });
    for (const secret of [creds.clientSecret, creds.tokenizationKey, creds.webhookSecret]) expect(show.stdout + list.stdout).not.toContain(secret);
  });

  it('add-key registers a real OpenSSH key once, allow-ip a range, set-webhook a URL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescued-cli-key-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'acme-sftp', '-f', join(dir, 'id')]);
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'id.pub')]).toString().split(' ')[1];
    const first = cli(['merchant', 'add-key', creds.mid!, join(dir, 'id.pub')], env);
    expect(first.stdout).toContain(`added: ssh-ed25519 ${fp}`);
    expect(cli(['merchant', 'add-key', creds.mid!, join(dir, 'id.pub')], env).stdout).toContain('already registered');
    const priv = cli(['merchant', 'add-key', creds.mid!, join(dir, 'id')], env);
    expect(priv.status).toBe(1);
    expect(priv.stderr).toContain('does not hold an OpenSSH public key');
    expect(cli(['merchant', 'allow-ip', creds.mid!, '203.0.113.0/24'], env).stdout).toContain('allowed: 203.0.113.0/24');
    expect(cli(['merchant', 'allow-ip', creds.mid!, '203.0.113.1/24'], env).status).toBe(1);
    expect(cli(['merchant', 'set-webhook', creds.mid!, 'https://acme.example/hooks'], env).stdout).toContain('webhook URL set: https://acme.example/hooks');
    const shown = JSON.parse(cli(['merchant', 'show', creds.mid!], env).stdout);
    expect(shown.sftp).toMatchObject({ keys: [{ algorithm: 'ssh-ed25519', fingerprint: fp, comment: 'acme-sftp' }], allowedCidrs: ['203.0.113.0/24'] });
    expect(shown.webhook).toMatchObject({ url: 'https://acme.example/hooks', enabled: true });
  });

  it('rotate-secret prints a new webhook secret once; --api-client a new client', () => {
    const rot = cli(['merchant', 'rotate-secret', creds.mid!], env);
    expect(rot.status, rot.stderr).toBe(0);
    const [, secret] = /webhook secret: (whsec_\S+)/.exec(rot.stdout)!;
    expect(secret).not.toBe(creds.webhookSecret);
    const api = cli(['merchant', 'rotate-secret', creds.mid!, '--api-client'], env);
    const [, clientId] = /API client id:\s+(rc_\S+)/.exec(api.stdout)!;
    expect(JSON.parse(cli(['merchant', 'show', creds.mid!], env).stdout).apiClients).toEqual([{ clientId, createdAt: expect.any(String) }]);
  });

  it('disable marks the merchant disabled; unknown mids are a clear error', () => {
    expect(cli(['merchant', 'disable', creds.mid!], env).status).toBe(0);
    expect(JSON.parse(cli(['merchant', 'show', creds.mid!], env).stdout).status).toBe('disabled');
    const missing = cli(['merchant', 'show', '00000000-0000-4000-8000-000000000000'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('rescued: No merchant with mid 00000000-0000-4000-8000-000000000000.\n');
  });
});
