// Idle memory of `npm start` on the embedded default (PGlite, sandbox mode): the daemon is
// started as npm start starts it (the pinned Node, npm start's flags, src/main.ts serve) on a
// new data folder, left until it is idle, and its RSS is sampled from /proc for a while. Two
// runs: the first start (initdb, migrations, the demo merchant) and a restart on the same
// folder (what a day-to-day start is). Beside them, in the same run: a bare `node -e` process
// with PGlite opened on an empty folder (PGlite's own defaults), and one doing nothing.
// Target: RSS below 200 MB (MiB, as /proc reports) once idle. A profile of where the daemon's
// resident memory lies (V8 heap pages, WebAssembly memory, the node binary, malloc) is printed
// beside the figure; docs/performance.md ("Idle memory") reads it.
// `npm run bench -- idle [--settle S] [--seconds S]`
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== 'idle'), options: { settle: { type: 'string', default: '15' }, seconds: { type: 'string', default: '30' } }, strict: false });
const SETTLE_MS = Number(opts.settle) * 1000;
const SAMPLE_MS = Number(opts.seconds) * 1000;
const TARGET_MB = 200;
const ROOT = join(import.meta.dirname, '..', '..');
// npm start's command line: its environment assignments (MALLOC_ARENA_MAX=2) and Node flags.
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
const START_FLAGS = START.filter((arg) => arg.startsWith('--'));
const START_ENV = Object.fromEntries(START.slice(0, START.indexOf('node')).map((a) => a.split('=') as [string, string]));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const work = mkdtempSync(join(tmpdir(), 'rescued-bench-idle-'));

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Resident memory by kind of mapping, in MB (smaps: V8 allocates its heap in 256 KiB pages). */
function profile(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const kb = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      const name = head[3]!;
      kind = name.endsWith('/node') ? 'node binary (shared, clean)'
        : name === '[heap]' ? 'malloc heap'
          : name.startsWith('/') ? 'other files'
            : name ? name
              : kb === 256 ? 'V8 heap pages (256 KiB)'
                : kb >= 100 * 1024 ? 'large reservations (WebAssembly memory, code range)'
                  : 'other anonymous (stacks, arenas, wasm code)';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] = (out[kind] ?? 0) + Number(rss[1]) / 1024;
  }
  return out;
}

async function sample(pid: number): Promise<{ median: number; max: number }> {
  const values: number[] = [];
  for (let t = 0; t < SAMPLE_MS; t += 1000) {
    values.push(rssMb(pid));
    await sleep(1000);
  }
  values.sort((a, b) => a - b);
  return { median: values[Math.floor(values.length / 2)]!, max: values.at(-1)! };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

/** Starts the daemon as npm start does; resolves once it has printed the sample batch (it is up). */
async function daemon(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...START_FLAGS, join(ROOT, 'src/main.ts'), 'serve'], {
    cwd: ROOT,
    env: { ...START_ENV, PATH: process.env.PATH, HOME: process.env.HOME, RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  for (let t = 0; !err.includes('Upload it with'); t += 100) {
    if (child.exitCode !== null || t > 120_000) throw new Error(`the daemon did not start: ${err.slice(-2000)}`);
    await sleep(100);
  }
  return child;
}

/** A process of its own running `code`, with npm start's flags; resolves when it prints "ready". */
async function bare(code: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...START_FLAGS, '--input-type=module', '-e', code], { cwd: ROOT, env: { ...process.env, ...START_ENV }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  for (let t = 0; !out.includes('ready'); t += 100) {
    if (child.exitCode !== null || t > 60_000) throw new Error('the baseline process did not start');
    await sleep(100);
  }
  return child;
}

async function measure(label: string, start: () => Promise<ChildProcess>, withProfile = false): Promise<number> {
  const child = await start();
  try {
    await sleep(SETTLE_MS);
    const { median, max } = await sample(child.pid!);
    console.log(`  ${label.padEnd(52)} RSS median ${median.toFixed(0)} MB, max ${max.toFixed(0)} MB`);
    if (withProfile) {
      const parts = Object.entries(profile(child.pid!)).filter(([, mb]) => mb >= 1).sort((a, b) => b[1] - a[1]);
      for (const [kind, mb] of parts) console.log(`      ${mb.toFixed(0).padStart(4)} MB  ${kind}`);
    }
    return max;
  } finally {
    await stop(child);
  }
}

console.log(`idle RSS, ${Object.entries(START_ENV).map(([k, v]) => `${k}=${v} `).join('')}Node ${process.version} ${START_FLAGS.join(' ')}; settle ${SETTLE_MS / 1000} s, then ${SAMPLE_MS / 1000} s of samples; load average ${loadavg()[0]!.toFixed(1)}`);
try {
  await measure('node -e, doing nothing  [baseline]', () => bare("console.log('ready'); setInterval(() => {}, 1000);"));
  const emptyDir = join(work, 'bare-pglite');
  await measure('node -e, PGlite on an empty folder  [baseline]', () => bare(`import { PGlite } from '@electric-sql/pglite'; const pg = await PGlite.create(${JSON.stringify(emptyDir)}); await pg.query('select 1'); console.log('ready'); setInterval(() => {}, 1000);`));
  const dataDir = join(work, 'data');
  const first = await measure('npm start, first start (new data folder)', () => daemon(dataDir), true);
  const again = await measure('npm start, restarted on the same folder', () => daemon(dataDir), true);
  const worst = Math.max(first, again);
  console.log(`  target: idle RSS < ${TARGET_MB} MB: ${worst < TARGET_MB ? 'PASS' : 'FAIL'} (${worst.toFixed(0)} MB at most)`);
  process.exitCode = worst < TARGET_MB ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
