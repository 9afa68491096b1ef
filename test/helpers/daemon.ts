// Runs `rescued` as a real process (the pinned Node, src/main.ts), for end-to-end tests.
import { afterAll, afterEach, beforeEach } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPgliteDir } from './db.ts';
import { waitFor } from './wait.ts';
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
  /** Resolves when stderr/stdout match (the daemon's own signal: a log line, the banner). */
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

/** Kills these daemons and waits until each has exited (the data folder's lock is free). */
async function killAndReap(daemons: ChildProcess[]): Promise<void> {
  const exits = daemons.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of daemons) c.kill('SIGKILL');
  await Promise.all(exits);
}

// A daemon started by a test lives no longer than the test, pass, fail or timeout: the next
// test of the file (often the card sweep, which opens the same data folder) must not find
// the folder held by it. Daemons started in a beforeAll serve the tests after it, and go at
// the end of the file. (The hooks apply to the file that imports this helper first; e2e files
// each get a fresh module graph.)
let testing = false;
const startedByTest = new Set<ChildProcess>();
beforeEach(() => {
  testing = true;
});
afterEach(async () => {
  testing = false;
  const mine = [...startedByTest];
  startedByTest.clear();
  await killAndReap(mine);
});
// Also at the end of every test file that starts daemons: vitest may end its workers by
// signal, which skips 'exit'. The file's temporary folders go after its processes.
const folders: string[] = [];
afterAll(async () => {
  await killAndReap([...children]);
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
  if (testing) startedByTest.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  let err = '';
  // 'close' comes after the last output: a line printed just before the exit is still read.
  let closed = false;
  child.on('close', () => (closed = true));
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
      const text = () => (stream === 'stdout' ? out : err);
      return waitFor(() => {
        const m = text().match(pattern);
        if (m) return m;
        if (closed) throw new Error(`daemon exited (${child.exitCode ?? child.signalCode}) without printing ${pattern}\nstdout: ${out.slice(-4000)}\nstderr: ${err}`);
        return undefined;
      }, { what: `${pattern} on the daemon's ${stream}`, timeoutMs, wakeOn: [[child.stdout!, 'data'], [child.stderr!, 'data'], [child, 'close']], detail: () => `stdout: ${out.slice(-4000)}\nstderr: ${err}` });
    },
  };
}
