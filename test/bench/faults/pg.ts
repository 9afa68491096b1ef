// A private PostgreSQL cluster for the fault campaign: initdb into a temporary folder, its own
// port and socket folder, run as the `postgres` user with pg_ctl. The campaign restarts,
// stops and freezes its server; doing that to the shared server (what `pg_ctlcluster …
// restart` would touch) would break every other test run on the machine, so the campaign
// never does. Removed at the end, pass or fail (remove() is idempotent).
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

const BIN = '/usr/lib/postgresql/15/bin';

export interface PrivatePg {
  /** Base URL (the `postgres` database); databases are made with createDatabase. */
  url: string;
  port: number;
  createDatabase(name: string): Promise<string>;
  /** pg_ctl restart -m fast: sessions are ended, the server comes back at once. */
  restart(): void;
  stop(): void;
  start(): void;
  /** SIGSTOP / SIGCONT of the postmaster and its children: connections hang instead of failing. */
  freeze(): void;
  thaw(): void;
  remove(): void;
}

/** A TCP port free on 127.0.0.1 just now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function asPostgres(args: string[], timeoutMs = 120_000): string {
  const res = spawnSync('runuser', ['-u', 'postgres', '--', ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (res.status !== 0) throw new Error(`${args.join(' ')} failed (${res.status ?? res.signal}): ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** The server's processes (postmaster first): `ps` by parent, since they share no group we made. */
function serverPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' });
  return [postmaster, ...ps.stdout.split('\n').map(Number).filter((n) => n > 0)];
}

export async function startPrivatePg(): Promise<PrivatePg> {
  const root = mkdtempSync(join(tmpdir(), 'rescued-faults-pg-'));
  chownSync(root, uidOf('postgres'), gidOf('postgres'));
  const dataDir = join(root, 'data');
  const port = await freePort();
  let removed = false;
  asPostgres([`${BIN}/initdb`, '-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  // The host's disk is shared; the campaign kills the daemon, not the machine, so fsync adds nothing.
  writeFileSync(join(dataDir, 'postgresql.auto.conf'), [
    `port = ${port}`, `unix_socket_directories = '${root}'`, "listen_addresses = '127.0.0.1'", 'fsync = off',
    'full_page_writes = off', 'max_connections = 200', 'shared_buffers = 64MB', "log_min_messages = 'fatal'",
  ].join('\n'));
  chownSync(join(dataDir, 'postgresql.auto.conf'), uidOf('postgres'), gidOf('postgres'));
  const ctl = (...args: string[]) => asPostgres([`${BIN}/pg_ctl`, '-D', dataDir, '-l', join(root, 'server.log'), '-w', '-t', '120', ...args]);
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of serverPids(dataDir)) {
      try {
        process.kill(pid, sig);
      } catch {
        // gone meanwhile
      }
    }
  };
  ctl('start');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name) {
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      await admin.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    restart: () => void ctl('restart', '-m', 'fast'),
    stop: () => void ctl('stop', '-m', 'fast'),
    start: () => void ctl('start'),
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    remove() {
      if (removed) return;
      removed = true;
      try {
        signal('SIGCONT');
      } catch {
        // not running
      }
      spawnSync('runuser', ['-u', 'postgres', '--', `${BIN}/pg_ctl`, '-D', dataDir, 'stop', '-m', 'immediate', '-w'], { stdio: 'ignore', timeout: 60_000 });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function idOf(flag: '-u' | '-g', user: string): number {
  const res = spawnSync('id', [flag, user], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`no ${user} user: ${res.stderr}`);
  return Number(res.stdout.trim());
}
const uidOf = (user: string) => idOf('-u', user);
const gidOf = (user: string) => idOf('-g', user);
