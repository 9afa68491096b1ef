// docs/operations.md's install, run: systemd/install.sh into a scratch root, with a throwaway
// system user and a PostgreSQL role made by systemd/postgres-setup.sql (login, owner of its
// database, nothing else). systemd does not run here, so the installed unit is checked with
// `systemd-analyze verify`, and the daemon is started by hand as the unit would: its user, its
// ExecStart, its environment and the installed configuration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKOUT, createRole, install, query, startAs, type Install, type PgRole } from '../helpers/install.ts';

const ADMIN = process.env.TEST_DATABASE_URL;
const root = process.getuid?.() === 0;
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!analyze && process.env.REQUIRE_SYSTEMD_ANALYZE) throw new Error('systemd-analyze is required (REQUIRE_SYSTEMD_ANALYZE is set) but not installed');

describe.skipIf(!ADMIN || !root)('install on a server (systemd/install.sh)', () => {
  let pg: PgRole;
  let inst: Install;
  beforeAll(() => {
    pg = createRole(ADMIN!, 'rescued_install');
    inst = install(pg.url);
  });
  afterAll(() => {
    inst?.remove();
    pg?.drop();
  });

  it('installs the code without data/ or node_modules copied, the pinned Node present', () => {
    const opt = join(inst.root, 'opt/rescued');
    expect(existsSync(join(opt, 'src/main.ts'))).toBe(true);
    expect(existsSync(join(opt, 'data'))).toBe(false);
    expect(existsSync(join(opt, 'test'))).toBe(false);
    expect(lstatSync(join(opt, 'node_modules')).isSymbolicLink()).toBe(true); // --node-modules-from
    expect(statSync(join(opt, 'node_modules/node/bin/node')).mode & 0o111).not.toBe(0);
  });

  it('writes a production configuration with generated secrets, readable by the daemon only', () => {
    const etc = join(inst.root, 'etc/rescued');
    const config = JSON.parse(readFileSync(join(etc, 'rescued.json'), 'utf8')) as { mode: string; vault: { keys: Record<string, string>; fingerprintKey: string }; auth: { signingKeys: Record<string, string> } };
    expect(config.mode).toBe('production');
    const keys = [...Object.values(config.vault.keys), config.vault.fingerprintKey, ...Object.values(config.auth.signingKeys)];
    expect(new Set(keys).size).toBe(3);
    for (const k of keys) expect(Buffer.from(k, 'base64')).toHaveLength(32);
    expect(statSync(etc).mode & 0o777).toBe(0o750);
    expect(statSync(join(etc, 'rescued.json'))).toMatchObject({ uid: 0, gid: inst.gid });
    expect(statSync(join(etc, 'rescued.json')).mode & 0o777).toBe(0o640);
    expect(statSync(join(etc, 'rescued.env'))).toMatchObject({ uid: 0, gid: 0 });
    expect(statSync(join(etc, 'rescued.env')).mode & 0o777).toBe(0o600);
    expect(statSync(join(inst.root, 'var/lib/rescued'))).toMatchObject({ uid: inst.uid });
  });

  it.skipIf(!analyze)('the installed unit passes systemd-analyze verify', () => {
    expect(inst.unit).toMatch(new RegExp(`^User=${inst.user}$`, 'm'));
    // systemd-analyze --root does not resolve ExecStart's path: verify a copy pointing under the root.
    const copy = join(inst.root, 'rescued.service');
    writeFileSync(copy, inst.unit.replaceAll('/opt/rescued', join(inst.root, 'opt/rescued')));
    const res = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('the role is least-privileged: no superuser, createdb, createrole; it owns its database', () => {
    expect(query(ADMIN!, `SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = '${pg.role}'`)).toBe('f|f|f|f|f|t');
    expect(query(ADMIN!, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '${pg.db}'`)).toBe(pg.role);
  });

  it('the daemon started by hand as the installed user migrates, starts and stops cleanly on SIGTERM', async () => {
    // Ports of the parallel test files' daemons are unknown: any free one.
    const daemon = startAs(inst, inst.env({ RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0' }));
    try {
      await daemon.waitFor(/"stage":"http".*"msg":"stage started"/, 'the http stage started');
      expect(daemon.out()).toMatch(/"stage":"storage","database":"postgres","mode":"production"/);
      // The migrations ran as the role: it owns the tables it made.
      expect(Number(query(pg.url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = '${pg.role}'`))).toBeGreaterThan(10);
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill('SIGKILL');
    }
    expect(daemon.out()).not.toContain(pg.password);
  });

  it('the CLI runs as the installed user with the installed configuration', async () => {
    const env = inst.env();
    const add = startAs(inst, env, ['merchant', 'add', '--name', 'Installed', '--json']);
    expect(await add.exited, add.out()).toBe(0);
    const list = startAs(inst, env, ['merchant', 'list']);
    expect(await list.exited, list.out()).toBe(0);
    expect(list.out()).toContain('Installed');
  });

  it('run again (an upgrade), keeps the configuration and its secrets', () => {
    const files = ['etc/rescued/rescued.json', 'etc/rescued/rescued.env'].map((f) => join(inst.root, f));
    const before = files.map((f) => readFileSync(f, 'utf8'));
    const again = (script: string) => spawnSync(script, ['--root', inst.root, '--user', inst.user, '--database-url', 'postgres://other@127.0.0.1/other', '--node-modules-from', join(CHECKOUT, 'node_modules')], { encoding: 'utf8' });
    // From the installed copy it would copy the tree onto itself: refused, nothing touched.
    const self = again(join(inst.root, 'opt/rescued/systemd/install.sh'));
    expect(self.status).toBe(64);
    expect(self.stderr).toContain('run it from the checkout of the release to install');
    const res = again(join(CHECKOUT, 'systemd/install.sh'));
    expect(res.status, res.stderr).toBe(0);
    expect(existsSync(join(inst.root, 'opt/rescued/src/main.ts'))).toBe(true);
    expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(before);
    expect(res.stdout + res.stderr).not.toMatch(/[A-Za-z0-9+/]{43}=/); // no secret printed
  });
});
