// A server install in a scratch root, for the operations tests: systemd/install.sh run into a
// temporary folder (the checkout's node_modules linked, since npm ci would take minutes), a
// throwaway system user, and a least-privileged PostgreSQL role and database made by
// systemd/postgres-setup.sql. Everything is removed by `remove()`, pass or fail.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { waitFor } from './wait.ts';

export const CHECKOUT = join(import.meta.dirname, '../..');

export interface PgRole {
  role: string;
  db: string;
  password: string;
  /** The daemon's URL: the role and its password. */
  url: string;
  drop(): void;
}

function psql(adminUrl: string, args: string[]): string {
  const res = spawnSync('psql', [adminUrl, '-X', '-At', '-v', 'ON_ERROR_STOP=1', ...args], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`psql ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

export const query = (adminUrl: string, sql: string): string => psql(adminUrl, ['-c', sql]);

/** A login role owning a new database, as docs/operations.md makes it. */
export function createRole(adminUrl: string, prefix: string): PgRole {
  const suffix = randomBytes(4).toString('hex');
  const role = `${prefix}_${suffix}`;
  const db = `${prefix}_${suffix}`;
  const password = randomBytes(12).toString('hex');
  psql(adminUrl, ['-v', `role=${role}`, '-v', `db=${db}`, '-v', `password=${password}`, '-f', join(CHECKOUT, 'systemd/postgres-setup.sql')]);
  const u = new URL(adminUrl);
  return {
    role, db, password,
    url: `postgres://${role}:${password}@${u.host}/${db}`,
    drop: () => {
      query(adminUrl, `DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      query(adminUrl, `DROP ROLE IF EXISTS "${role}"`);
    },
  };
}

export interface Install {
  root: string;
  user: string;
  uid: number;
  gid: number;
  /** The installed unit's text. */
  unit: string;
  /** The environment systemd would give the daemon: rescued.env, the unit's Environment=, under the root. */
  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** The unit's ExecStart, its paths under the root. */
  execStart(): string[];
  remove(): void;
}

/**
 * Lets other users pass through every folder above the checkout (search only, o+x), as they
 * must to reach its node_modules that the install links; answers how to undo it. A CI clone
 * may sit in a folder closed to others (mktemp -d makes it 0700).
 */
function openPathTo(dir: string): () => void {
  const opened: Array<[string, number]> = [];
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      opened.push([d, mode]);
    }
  }
  return () => {
    for (const [d, mode] of opened) chmodSync(d, mode);
  };
}

export function install(databaseUrl: string): Install {
  // Under /tmp itself: the run's own temporary folder (TMPDIR) is closed to other users.
  const root = mkdtempSync('/tmp/rescued-install-');
  chmodSync(root, 0o755); // the daemon's user reaches /opt/rescued through it
  const user = `rsd-${randomBytes(3).toString('hex')}`;
  const close = openPathTo(join(CHECKOUT, 'node_modules'));
  const res = spawnSync(join(CHECKOUT, 'systemd/install.sh'), ['--root', root, '--user', user, '--database-url', databaseUrl, '--node-modules-from', join(CHECKOUT, 'node_modules')], { encoding: 'utf8' });
  const remove = () => {
    spawnSync('userdel', [user]);
    rmSync(root, { recursive: true, force: true });
    close();
  };
  if (res.status !== 0) {
    remove();
    throw new Error(`install.sh exited ${res.status}: ${res.stderr}`);
  }
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  const unit = readFileSync(join(root, 'etc/systemd/system/rescued.service'), 'utf8');
  const under = (path: string) => path.replaceAll('/opt/rescued', join(root, 'opt/rescued')).replaceAll('/etc/rescued', join(root, 'etc/rescued')).replaceAll('/var/lib/rescued', join(root, 'var/lib/rescued'));
  return {
    root, user, unit, uid: id('-u'), gid: id('-g'), remove,
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
      for (const m of unit.matchAll(/^Environment=(\w+)=(.*)$/gm)) env[m[1]!] = under(m[2]!);
      for (const m of readFileSync(join(root, 'etc/rescued/rescued.env'), 'utf8').matchAll(/^(\w+)=(.*)$/gm)) env[m[1]!] = m[2]!;
      return { ...env, ...extra };
    },
    execStart: () => under(/^ExecStart=(.*)$/m.exec(unit)![1]!).split(' '),
  };
}

export interface HandStarted {
  child: ChildProcess;
  out: () => string;
  waitFor(pattern: RegExp, what: string): Promise<void>;
  exited: Promise<number | null>;
}

/** The daemon started by hand as the installed user, with the installed command and environment. */
export function startAs(inst: Install, env: NodeJS.ProcessEnv, args: string[] = ['serve']): HandStarted {
  // ExecStart ends with `serve`: other commands run with the same Node, flags and main.ts.
  const [cmd, ...rest] = inst.execStart().slice(0, -1);
  const child = spawn(cmd!, [...rest, ...args], { cwd: join(inst.root, 'opt/rescued'), env, uid: inst.uid, gid: inst.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  child.on('error', (err) => (out += `spawn failed: ${err.message}\n`));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child, exited, out: () => out,
    waitFor: async (pattern, what) => void await waitFor(() => {
      if (pattern.test(out)) return true;
      if (child.exitCode !== null) throw new Error(`the daemon exited ${child.exitCode} before ${what}:\n${out}`);
      return undefined;
    }, { what, timeoutMs: 60_000, wakeOn: [[child.stdout!, 'data'], [child.stderr!, 'data'], [child, 'exit']], detail: () => out.slice(-4000) }),
  };
}
