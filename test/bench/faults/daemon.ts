// `rescued serve` as a child process under a small supervisor, as systemd runs it
// (Restart=always): the campaign SIGKILLs it at chosen moments and starts it again, and a
// daemon that exits by itself (a lost database at start, say) is started again too, and
// counted. Every child is killed when the campaign's process ends, pass or fail.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'src/main.ts');
/** The Node flags of `npm start` (and the systemd unit): the daemon runs as deployed. */
const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((a) => a.startsWith('--'));
/** Output kept per daemon for the failure report (the tail only: a large ingest logs a lot). */
const KEEP_BYTES = 256 * 1024;

const living = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of living) c.kill('SIGKILL');
});

function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('RESCUED_') && k !== 'DATABASE_URL') env[k] = v;
  return { ...env, ...extra };
}

export interface Supervised {
  /** Starts the daemon (if not running) and resolves once its HTTP side-port serves. */
  up(): Promise<void>;
  /** SIGKILL, and wait for the exit; the supervisor does not restart it until up(). */
  kill(): Promise<void>;
  /** SIGTERM (drain), and wait for the exit. */
  stop(): Promise<void>;
  /** The side-port's base URL (fixed: the config names the port). */
  base: string;
  /** Exits nobody asked for (each followed by a restart). */
  unexpectedExits(): number;
  tail(): string;
  /** The running daemon's process id (undefined while it is down). */
  pid(): number | undefined;
}

let logFile: string | undefined;
/** Every daemon's whole output is appended to this file too (`--daemon-log FILE`). */
export function keepDaemonLogs(file: string): void {
  logFile = file;
}

export function supervise(env: NodeJS.ProcessEnv, httpPort: number, timeoutMs: number): Supervised {
  let child: ChildProcess | undefined;
  let wanted = false;
  let unexpected = 0;
  let out = '';
  const keep = (d: Buffer | string) => {
    if (logFile) appendFileSync(logFile, d);
    out += d;
    if (out.length > KEEP_BYTES * 2) out = out.slice(-KEEP_BYTES);
  };

  function spawnOne(): ChildProcess {
    const c = spawn(process.execPath, [...START_FLAGS, MAIN, 'serve'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    living.add(c);
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    c.on('exit', (code, signal) => {
      living.delete(c);
      if (child !== c) return;
      child = undefined;
      if (!wanted) return;
      unexpected++;
      keep(`\n[supervisor] daemon exited by itself (${code ?? signal}); starting it again\n`);
      setTimeout(() => {
        if (wanted && !child) child = spawnOne();
      }, 200);
    });
    return c;
  }

  const base = `http://127.0.0.1:${httpPort}`;
  async function serving(): Promise<boolean> {
    try {
      return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).status < 500;
    } catch {
      return false;
    }
  }

  async function exitOf(c: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
    wanted = false;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await gone;
  }

  return {
    base,
    async up() {
      wanted = true;
      child ??= spawnOne();
      const started = Date.now();
      while (!(await serving())) {
        if (Date.now() - started > timeoutMs) throw new Error(`the daemon did not serve within ${timeoutMs} ms\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: () => exitOf(child, 'SIGKILL'),
    stop: () => exitOf(child, 'SIGTERM'),
    unexpectedExits: () => unexpected,
    tail: () => out.slice(-8000),
    pid: () => child?.pid,
  };
}
