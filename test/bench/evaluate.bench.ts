// CIT evaluate over HTTP: autocannon (50 connections, 10 s) against a real listening
// side-port on 127.0.0.1 with the sandbox processor at zero latency, beside a bare fastify
// route on the same server that makes one INSERT per request, measured in the same run. Every
// evaluate is a new order (fresh orderId and idempotencyKey) with a soft decline, so each one
// makes its attempt: bearer check, rate limit, validation, card look-up, processor call, one
// grouped write. The server runs in a child process so the load generator does not share its
// event loop; it counts the statements it sends (src/db/prepared.ts), printed per request.
// PostgreSQL (DATABASE_URL or TEST_DATABASE_URL) over TCP, then over its Unix socket
// (`--transport tcp|unix|both`, socket folder `--socket`, default /var/run/postgresql);
// `--db pglite` runs it on PGlite instead; `--processor memory` uses a processor that stores
// nothing and is not the sandbox (the gateway path: claim, call, write).
// Target: ≥ 0.5× of the baseline's rate, p99 ≤ 2× the baseline's p99.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/client.ts';
import { report, type Rate } from './lib.ts';
import type { Processor } from '../../src/processors/types.ts';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from '../../src/config/schema.ts';

const TARGET = { ratio: 0.5, p99Ratio: 2 };
const CONNECTIONS = 50;
const SECONDS = 10;
const ROUNDS = 2;
const WARMUP_SECONDS = 3;

interface Served {
  port: number;
  bearer: string;
  cardToken: string;
  mid: string;
  siteId: string;
}

// ---- child: the server ---------------------------------------------------------------
/** A processor that approves at once without storing anything: the API's own cost, for comparison. */
const memoryProcessor: Processor = {
  name: 'memory',
  authorize: async (r) => ({ approved: true, responseCode: '00', processorRef: `mem_${r.idempotencyKey}`, replayed: false }),
  refund: async () => ({ approved: true, responseCode: '00', processorRef: 'mem', replayed: false }),
  void: async () => ({ approved: true, responseCode: '00', processorRef: 'mem', replayed: false }),
};

async function serve(kind: 'pglite' | 'postgres', processorKind: string): Promise<void> {
  const { testApp } = await import('../helpers/app.ts');
  const { createSandboxProcessor } = await import('../../src/processors/sandbox.ts');
  const { statementsSent } = await import('../../src/db/prepared.ts');
  // The baseline: fastify with one INSERT per request, nothing else (the database is the test app's).
  const ref: { db?: Db } = {};
  const baseline = (app: FastifyInstance) => {
    app.post('/bench/insert', { schema: { hide: true } }, async (request) => {
      await ref.db!.execute(sql`insert into bench_rows (body) values (${JSON.stringify(request.body)}::json)`);
      return { success: true };
    });
    app.get('/bench/statements', { schema: { hide: true } }, async () => ({ sent: statementsSent() }));
  };
  // As the daemon runs: the default pool size, merchant status remembered 5 s; a rate limit
  // the load stays under.
  const t = await testApp(kind, baseline, {
    poolSize: (Value.Default(ConfigSchema, {}) as Config).database.poolSize,
    activeCacheMs: 5_000,
    processor: processorKind === 'memory' ? memoryProcessor : ({ db: d, vault }) => createSandboxProcessor({ db: d, vault, latencyMs: 0 }),
    api: { rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 },
  });
  const db = (ref.db = t.tdb.database.db);
  await db.execute(sql`create table bench_rows (id uuid primary key default gen_random_uuid(), body json not null, created_at timestamptz not null default now())`);
  const creds = await t.merchants.add({ name: 'Bench' });
  const merchantId = (await t.merchants.byMid(creds.mid)).id;
  const { token } = await t.tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
  const card = await t.vault.tokenize(merchantId, { number: '4111111111111111', month: 12, year: 2035, firstName: 'Jane', lastName: 'Doe' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  const served: Served = { port, bearer: `Bearer ${token}`, cardToken: card.card.token, mid: creds.mid, siteId: creds.siteId };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.on('unhandledRejection', () => {});
  process.once('SIGTERM', () => void t.close().finally(() => process.exit(0)));
}

// ---- parent: the load -----------------------------------------------------------------
/** `--cpu-prof-dir DIR` profiles the server process. */
const profileDir = process.argv.indexOf('--cpu-prof-dir');
const serverFlags = profileDir > 0 ? ['--cpu-prof', '--cpu-prof-dir', process.argv[profileDir + 1]!] : [];

function startServer(kind: string, processorKind: string): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(process.execPath, [...serverFlags, fileURLToPath(import.meta.url), '--serve', kind, processorKind], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, served: JSON.parse(line) as Served }));
  });
}

async function evaluateBodyMaker(served: Served): Promise<() => string> {
  const { asMerchant, evaluateBody, SOFT } = await import('../helpers/api.ts');
  const template = asMerchant(evaluateBody(served.cardToken, { tx: SOFT }), served) as Record<string, unknown>;
  return () => JSON.stringify({ ...template, orderId: `ORD-${randomUUID()}`, idempotencyKey: randomUUID() });
}

async function load(served: Served, path: string, next: () => string, seconds: number): Promise<Result> {
  return autocannon({
    url: `http://127.0.0.1:${served.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: 'POST', path, headers: { 'content-type': 'application/json', authorization: served.bearer }, setupRequest: (req) => ({ ...req, body: next() }) }],
  });
}

async function statements(served: Served): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${served.port}/bench/statements`);
  return ((await res.json()) as { sent: number }).sent;
}

type Measured = Rate & { p99: number; failures: number; statementsPerRequest: number };
const best = (a: Measured | undefined, b: Measured): Measured => (a === undefined || b.perSecond > a.perSecond ? b : a);

/** One round of load, with the statements the server sent meanwhile. */
async function measured(label: string, served: Served, path: string, next: () => string): Promise<Measured> {
  const before = await statements(served);
  const r = await load(served, path, next, SECONDS);
  const sent = (await statements(served)) - before;
  const failures = r.non2xx + r.errors + r.timeouts;
  return { label, count: r.requests.total, seconds: r.duration, perSecond: r.requests.total / r.duration, p99: r.latency.p99, failures, statementsPerRequest: sent / Math.max(1, r.requests.total) };
}

/** Statements per request for requests sent one at a time (no group to share). */
async function alone(served: Served, path: string, next: () => string, n = 200): Promise<number> {
  const before = await statements(served);
  for (let i = 0; i < n; i++) {
    const res = await fetch(`http://127.0.0.1:${served.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: served.bearer }, body: next() });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }
  return ((await statements(served)) - before) / n;
}

async function run(kind: string, processorKind: string, transport: string): Promise<boolean> {
  const { child, served } = await startServer(kind, processorKind);
  try {
    const evaluate = await evaluateBodyMaker(served);
    const row = () => evaluate();
    await load(served, '/bench/insert', row, WARMUP_SECONDS);
    await load(served, '/v1/evaluate', evaluate, WARMUP_SECONDS);
    const single = { baseline: await alone(served, '/bench/insert', row), ours: await alone(served, '/v1/evaluate', evaluate) };
    // Best of interleaved rounds: the machine is shared.
    let baseline: Measured | undefined;
    let ours: Measured | undefined;
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const b = await measured('fastify + one INSERT', served, '/bench/insert', row);
      const o = await measured(`CIT evaluate (soft decline, one ${processorKind} processor attempt)`, served, '/v1/evaluate', evaluate);
      failures += b.failures + o.failures;
      [baseline, ours] = [best(baseline, b), best(ours, o)];
    }
    if (!baseline || !ours) throw new Error('no round ran');
    console.log(`\n${kind}${kind === 'postgres' ? ` over ${transport}` : ''}, ${processorKind} processor, ${CONNECTIONS} connections, ${SECONDS} s per round, best of ${ROUNDS}:`);
    report(ours, baseline);
    const ratio = ours.perSecond / baseline.perSecond;
    const p99Ok = ours.p99 <= TARGET.p99Ratio * baseline.p99;
    console.log(`  p99 latency: ${ours.p99} ms (baseline ${baseline.p99} ms)`);
    if (kind === 'postgres') {
      const f = (n: number) => n.toFixed(2);
      console.log(`  statements per request: ${f(ours.statementsPerRequest)} under load, ${f(single.ours)} one at a time (baseline ${f(baseline.statementsPerRequest)}, ${f(single.baseline)})`);
    }
    console.log(`  target ≥ ${TARGET.ratio}x and p99 ≤ ${TARGET.p99Ratio}x the baseline's: ${ratio >= TARGET.ratio && p99Ok ? 'met' : 'NOT met'}`);
    if (failures > 0) console.log(`  FAILED requests (all rounds): ${failures}`);
    return failures === 0 && ratio >= TARGET.ratio && p99Ok;
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3] as 'pglite' | 'postgres', process.argv[4] ?? 'sandbox');
} else {
  const { values } = parseArgs({ options: { db: { type: 'string' }, processor: { type: 'string' }, transport: { type: 'string' }, socket: { type: 'string' } }, strict: false });
  // `--processor memory`: a processor that stores nothing, to see the API's own share.
  const processorKind = values.processor === 'memory' ? 'memory' : 'sandbox';
  process.env.TEST_DATABASE_URL ??= process.env.DATABASE_URL;
  const kind = values.db === 'pglite' || !process.env.TEST_DATABASE_URL ? 'pglite' : 'postgres';
  console.log(`CIT evaluate over HTTP, Node ${process.version}, ${kind}${kind === 'pglite' && values.db !== 'pglite' ? ' (set DATABASE_URL or TEST_DATABASE_URL for PostgreSQL)' : ''}`);
  const socket = typeof values.socket === 'string' ? values.socket : '/var/run/postgresql';
  const wanted = typeof values.transport === 'string' ? values.transport : 'both';
  const transports = kind === 'pglite' ? ['in process'] : wanted === 'both' ? ['tcp', 'unix'] : [wanted];
  let ok = true;
  for (const transport of transports) {
    if (transport === 'unix' && !existsSync(socket)) {
      console.log(`\nno PostgreSQL socket folder at ${socket} (--socket): the Unix socket round is skipped`);
      continue;
    }
    // The server child reads it (test/helpers/db.ts): its database is reached through the socket.
    if (transport === 'unix') process.env.TEST_DATABASE_SOCKET = socket;
    else delete process.env.TEST_DATABASE_SOCKET;
    ok = (await run(kind, processorKind, transport)) && ok;
  }
  if (!ok) process.exitCode = 1;
}
