// How fast the `rescued` command line answers (issue 28): p50 over N runs of `rescued --help`
// and of `rescued orders list` beside a running daemon (rescued serve on a new data folder:
// on PGlite the command is sent to the daemon over its socket; on PostgreSQL, when
// TEST_DATABASE_URL is set, it opens the database itself), with `node -e 0` in the same run as
// the baseline. Each command runs once first, unmeasured, so Node's compile cache
// (src/main.ts) is warm, as it is for an operator's second command; that first time is shown.
// Target: p50 ≤ 300 ms, or ≤ 4× node -e 0's p50.
// `npm run bench -- cli [--runs N]`
import { waitFor } from '../helpers/wait.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';

const { values: opts } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== 'cli'), options: { runs: { type: 'string', default: '15' } }, strict: false });
const RUNS = Number(opts.runs);
const TARGET_MS = 300;
const TARGET_RATIO = 4;
const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'src/main.ts');
const work = mkdtempSync(join(tmpdir(), 'rescued-bench-cli-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds one run of `node <args>` takes, start to exit; throws on a non-zero exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const res = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${res.status}: ${res.stderr.slice(-1000)}`);
  return ms;
}

function p50(args: string[], env: NodeJS.ProcessEnv): { first: number; p50: number } {
  const first = timed(args, env);
  const runs = Array.from({ length: RUNS }, () => timed(args, env)).sort((a, b) => a - b);
  return { first, p50: runs[Math.floor(runs.length / 2)]! };
}

/** rescued serve on its own data folder; resolves once it is up (it prints how to upload the sample batch). */
async function daemon(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the daemon did not start: ${err.slice(-2000)}`);
    return err.includes('Upload it with');
  }, { what: 'the daemon started', timeoutMs: 120_000, wakeOn: [[child.stderr!, 'data'], [child, 'exit']] });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

function line(label: string, m: { first: number; p50: number }, baseline: number): boolean {
  const ratio = m.p50 / baseline;
  const met = m.p50 <= TARGET_MS || ratio <= TARGET_RATIO;
  console.log(`  ${label.padEnd(44)} p50 ${m.p50.toFixed(0).padStart(5)} ms  (${ratio.toFixed(1)}× node -e 0; first run ${m.first.toFixed(0)} ms)  ${met ? 'PASS' : 'FAIL'}`);
  return met;
}

/** `orders list` beside a daemon on this database (a data folder's PGlite, or a PostgreSQL URL). */
async function besideDaemon(name: string, baseline: number, databaseUrl?: string): Promise<boolean> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, RESCUED_DATA_DIR: join(work, name), RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0', ...(databaseUrl ? { RESCUED_DATABASE_URL: databaseUrl } : {}) };
  const child = await daemon(env);
  try {
    return line(`rescued orders list beside serve (${name})`, p50([MAIN, 'orders', 'list'], env), baseline);
  } finally {
    await stop(child);
  }
}

/** A database of its own on the TEST_DATABASE_URL server, dropped afterwards. */
async function withDatabase<T>(url: string, body: (url: string) => Promise<T>): Promise<T> {
  const name = `rescued_bench_cli_${process.pid}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  try {
    const own = new URL(url);
    own.pathname = `/${name}`;
    return await body(own.toString());
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

console.log(`CLI start, Node ${process.version}, ${RUNS} runs each after one unmeasured; load average ${loadavg()[0]!.toFixed(1)}`);
try {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, RESCUED_DATA_DIR: join(work, 'help') };
  const baseline = p50(['-e', '0'], env);
  console.log(`  ${'node -e 0  [baseline]'.padEnd(44)} p50 ${baseline.p50.toFixed(0).padStart(5)} ms`);
  const results = [line('rescued --help', p50([MAIN, '--help'], env), baseline.p50), await besideDaemon('pglite', baseline.p50)];
  const pg = process.env.TEST_DATABASE_URL;
  if (pg) results.push(await withDatabase(pg, (url) => besideDaemon('postgresql', baseline.p50, url)));
  else console.log('  (PostgreSQL: set TEST_DATABASE_URL to measure orders list beside a daemon on it)');
  const met = results.every(Boolean);
  console.log(`  target: p50 ≤ ${TARGET_MS} ms or ≤ ${TARGET_RATIO}× node -e 0: ${met ? 'PASS' : 'FAIL'}`);
  process.exitCode = met ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
