// Runs `rescued` as a real process (the pinned Node, src/main.ts), for end-to-end tests.
import { afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPgliteDir } from './db.ts';
import { pgliteDirFor } from '../../src/db/client.ts';

const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'src/main.ts');

export function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('RESCUED_') && k !== 'DATABASE_URL') env[k] = v;
  return { ...env, ...extra };
}

/**
 * A new data folder whose embedded database is already migrated (a copy of the run's
 * template), for daemons whose first start-up is not what the test is about.
 */
export function seededDataDir(prefix: string): string {
  const dir = tempDir(prefix);
  seedPgliteDir(pgliteDirFor(dir));
  return dir;
}

export function cli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env: cleanEnv(env), encoding: 'utf8', timeout: 30_000 });
}

export interface RunningDaemon {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stderr/stdout match. */
  waitFor: (pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number) => Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// A test that fails half-way must not leave a daemon running (it would hold ports and the
// embedded database); whatever is still alive when the test process ends is killed.
const children = new Set<ChildProcess>();
const killAll = () => {
  for (const c of children) c.kill('SIGKILL');
};
process.on('exit', killAll);
// Also at the end of every test file that starts daemons: vitest may end its workers by
// signal, which skips 'exit'. The file's temporary folders go after its processes.
const folders: string[] = [];
afterAll(async () => {
  const exits = [...children].map((c) => new Promise((r) => c.once('exit', r)));
  killAll();
  await Promise.all(exits);
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const outputs: Array<() => string> = [];
/** All that the daemons started by this test file printed, stdout and stderr. */
export function daemonLogs(): string {
  return outputs.map((o) => o()).join('\n');
}

/** A temporary folder removed when the test file ends, pass or fail. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** The Node flags of `npm start` (and the systemd unit): the daemon under test runs as deployed. */
const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((arg) => arg.startsWith('--'));

export function startDaemon(env: NodeJS.ProcessEnv): RunningDaemon {
  // Any free SFTP port unless the test names one: daemons of parallel test files must not collide on 2222.
  const child = spawn(process.execPath, [...START_FLAGS, MAIN, 'serve'], { cwd: ROOT, env: cleanEnv({ RESCUED_SFTP_PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  outputs.push(() => `${out}\n${err}`);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, stream = 'stdout', timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = (stream === 'stdout' ? out : err).match(pattern);
          if (m) return resolve(m);
          if (child.exitCode !== null) return reject(new Error(`daemon exited (${child.exitCode})\nstdout: ${out.slice(-4000)}\nstderr: ${err}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}\nstdout: ${out}\nstderr: ${err}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    },
  };
}
