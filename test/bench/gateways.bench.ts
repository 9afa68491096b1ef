// Attempts per second through a gateway account: the engine (claim → pin the account → reveal
// the card → Stripe connector on the official SDK → record) charging a local Stripe fake that
// answers after 50 ms, beside the same orders through the built-in sandbox processor at 0 ms
// in the same run. Target ≥ 1,000 attempts/s through the gateway: its latency must not
// serialise the engine. The fake runs in a child process (gateway-fake.ts) so its HTTP work
// does not share the engine's event loop. Every order is one card with one approving
// attempt; a run ends when every order is final.
//   npm run bench -- gateways [--orders 10000] [--latency 50] [--concurrency 256] [--rate 2500]
//     [--account-concurrency 256] [--account-rate 2500] [--batch 200] [--db postgres,pglite]
//     [--defaults-sample 1000] [--fake-in-process]
//   npm run bench -- gateways --faults [--fault-rate 0.1] [--seed 42] [--timeout-ms 1000]
//     [--reconcile-after-ms 200] [--breaker-failures 10]
//   both: [--deadline-s 180] [--pglite-budget-s 60] [--pool 20] [--log warn]
// The settings: at 50 ms a call, 1,000 attempts/s keep about 50 calls in flight, plus the
// attempts being claimed and recorded; concurrency 256 (engine and account) leaves room for
// that and for calls that time out, and the rates (2,500/s) are above the target so that
// they never bind. The defaults cap one account at 100 calls/s (accountRatePerSecond): the
// run measures them too, on --defaults-sample orders.
// --faults: that share of the calls (seeded) time out or are reset, before anything is
// charged or after the charge; the engine reconciles them (same key sent again) within the
// run. Printed: charges per approved order at the fake (must be exactly 1.00), orders with
// other than one charge, attempts left unknown, orders not final; the exit status is non-zero
// when money is wrong (and, without --faults, when the target is missed).
// Profile: node --cpu-prof --cpu-prof-dir DIR test/bench/gateways.bench.ts [options] (the fake's
// process is profiled too: fork() passes the flags on).
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); PGlite
// too when its run fits in --pglite-budget-s (60).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'drizzle-orm';
import { systemClock } from '../../src/clock.ts';
import type { ResolvedConfig } from '../../src/config/index.ts';
import { ConfigSchema } from '../../src/config/schema.ts';
import type { Db } from '../../src/db/client.ts';
import { selectRows } from '../../src/db/queries/claim-orders.ts';
import { cards } from '../../src/db/schema.ts';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { gatewayCircuitOpened } from '../../src/metrics.ts';
import { createAccountService } from '../../src/processors/accounts.ts';
import { GatewayError } from '../../src/processors/connector.ts';
import { createProcessorRouter } from '../../src/processors/router.ts';
import { createSandboxProcessor } from '../../src/processors/sandbox.ts';
import type { Processor } from '../../src/processors/types.ts';
import { keyRingFrom, type KeyRing } from '../../src/vault/cipher.ts';
import { sealCard } from '../../src/vault/sealed-card.ts';
import { createVault, type Vault } from '../../src/vault/service.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';
import { createLogger } from '../../src/log.ts';
import { freshDatabase, type DbKind, type TestDatabase } from '../helpers/db.ts';
import { DEFAULT_ENGINE_CONFIG, insertTestOrders } from '../helpers/engine.ts';
import { key32 } from '../helpers/keys.ts';
import { FAULTS, scriptedFake, type FakeOptions, type FakeStats } from './gateway-fake.ts';
import { measure, report, type Rate } from './lib.ts';

const { values: opts } = parseArgs({
  options: {
    orders: { type: 'string', default: '10000' },
    latency: { type: 'string', default: '50' },
    faults: { type: 'boolean', default: false },
    'fault-rate': { type: 'string', default: '0.1' },
    seed: { type: 'string', default: '42' },
    concurrency: { type: 'string', default: '256' },
    rate: { type: 'string', default: '2500' },
    'account-concurrency': { type: 'string', default: '256' },
    'account-rate': { type: 'string', default: '2500' },
    batch: { type: 'string', default: '200' },
    pool: { type: 'string', default: '20' },
    'timeout-ms': { type: 'string' },
    'reconcile-after-ms': { type: 'string', default: '200' },
    'breaker-failures': { type: 'string' },
    db: { type: 'string', default: 'postgres,pglite' },
    'pglite-budget-s': { type: 'string', default: '60' },
    'deadline-s': { type: 'string', default: '180' },
    'defaults-sample': { type: 'string', default: '1000' },
    'fake-in-process': { type: 'boolean', default: false },
    /** The engine's and the router's log (to stderr), e.g. warn; silent by default. */
    log: { type: 'string', default: 'silent' },
  },
});
const N = Number(opts.orders);
const LATENCY_MS = Number(opts.latency);
const FAULT_RATE = opts.faults ? Number(opts['fault-rate']) : 0;
const SEED = Number(opts.seed);
const TARGET = 1_000;
const KINDS = opts.db.split(',').filter(Boolean) as DbKind[];
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

const PROCESSOR_DEFAULTS = Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor'];
/** The processor keys the bench sets (the rest are the defaults). */
const LIMITS = {
  concurrency: Number(opts.concurrency),
  ratePerSecond: Number(opts.rate),
  accountConcurrency: Number(opts['account-concurrency']),
  accountRatePerSecond: Number(opts['account-rate']),
  // Faults: a call that never answers must time out within the run (the default is 30 s).
  timeoutMs: Number(opts['timeout-ms'] ?? (opts.faults ? 1000 : PROCESSOR_DEFAULTS.timeoutMs)),
  reconcileAfterMs: Number(opts['reconcile-after-ms']),
  // The default breaker, faults or not: it opens only when most of an account's calls fail (an
  // earlier breaker counted failures in a row, and the timeouts that end together tripped it).
  breakerFailures: Number(opts['breaker-failures'] ?? PROCESSOR_DEFAULTS.breakerFailures),
};
const DEFAULT_LIMITS: Limits = {
  concurrency: PROCESSOR_DEFAULTS.concurrency, ratePerSecond: PROCESSOR_DEFAULTS.ratePerSecond, accountConcurrency: PROCESSOR_DEFAULTS.accountConcurrency, accountRatePerSecond: PROCESSOR_DEFAULTS.accountRatePerSecond,
  timeoutMs: PROCESSOR_DEFAULTS.timeoutMs, reconcileAfterMs: LIMITS.reconcileAfterMs, breakerFailures: PROCESSOR_DEFAULTS.breakerFailures,
};
type Limits = typeof LIMITS;

const log = createLogger({ level: opts.log });
const approve = sandboxTestCards().find('4111111111111111')!;

// ---- the fake: a child process (or this one with --fake-in-process) ----------------------
interface FakeHandle {
  url: string;
  key: string;
  where: string;
  stats(): Promise<FakeStats>;
  close(): Promise<void>;
}

async function startFake(o: FakeOptions): Promise<FakeHandle> {
  if (opts['fake-in-process']) {
    const fake = await scriptedFake(o);
    return { url: fake.url, key: fake.key, where: 'in the bench process (--fake-in-process)', stats: async () => ({ ...fake.stats(), cpuSeconds: Number.NaN }), close: () => fake.close() };
  }
  const child: ChildProcess = fork(fileURLToPath(new URL('./gateway-fake.ts', import.meta.url)), [JSON.stringify(o)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the Stripe fake exited (${code})`)));
    child.once('message', (m) => resolve(m as { url: string; key: string }));
  });
  return {
    ...ready,
    where: `in its own process (pid ${child.pid})`,
    stats: () => new Promise((resolve) => {
      child.once('message', (m) => resolve(m as FakeStats));
      child.send({ type: 'stats' });
    }),
    close: () => new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}

// ---- the database: merchants, cards and due orders -------------------------------------
interface Bench {
  kind: DbKind;
  tdb: TestDatabase;
  db: Db;
  ring: KeyRing;
  vault: Vault;
  merchants: ReturnType<typeof createMerchantService>;
}

async function openBench(kind: DbKind): Promise<Bench> {
  // An empty database migrated here: the test helpers' migrated templates exist only under vitest.
  const tdb = await freshDatabase(kind, { empty: true, poolSize: Number(opts.pool) });
  const db = tdb.database.db;
  const ring = keyRingFrom({ v1: key32() }, 'v1');
  const vault = createVault({ db, ring, fingerprintKey: key32(), mode: 'sandbox', testCards: sandboxTestCards() });
  return { kind, tdb, db, ring, vault, merchants: createMerchantService({ db, vault: ring, mode: 'sandbox' }) };
}

/** A merchant of its own per phase, so each phase's orders, attempts and charges are told apart. */
async function merchant(b: Bench, name: string): Promise<{ id: string; mid: string }> {
  const creds = await b.merchants.add({ name });
  return { id: (await b.merchants.byMid(creds.mid)).id, mid: creds.mid };
}

/** `n` due orders, one card each (the network caps count per card), as a book of rebills has. */
async function dueOrders(b: Bench, merchantId: string, n: number): Promise<void> {
  const rows = Array.from({ length: n }, () => {
    const token = `tok_${randomBytes(24).toString('base64url')}`;
    return {
      token, merchantId, fingerprint: randomBytes(16).toString('hex'), keyId: b.ring.activeKeyId,
      sealed: sealCard(b.ring, merchantId, token, { pan: approve.number, holderName: 'Bench Payer' }),
      bin: '411111', last4: '1111', expMonth: 12, expYear: 2035, brand: 'VISA', test: true,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await b.db.insert(cards).values(rows.slice(i, i + 1000));
  const now = Date.now();
  await insertTestOrders(b.db, rows.map((r) => ({ card: approve, token: r.token, merchantId, createdAt: new Date(now - 86_400_000), expiresAt: new Date(now + 20 * 86_400_000), status: 'PENDING' as const, nextAttemptAt: new Date(now) })));
}

const circuitOpenings = async () => (await gatewayCircuitOpened.get()).values.reduce((a, v) => a + v.value, 0);
const count = async (db: Db, q: ReturnType<typeof sql>) => Number((await selectRows(db, q))[0]!.n);
const openOrders = (db: Db, merchantId: string) => count(db, sql`select count(*)::int as n from orders where merchant_id = ${merchantId} and status in ('SUBMITTED', 'PENDING', 'PROCESSING')`);

// ---- CPU of the whole machine (engine, PostgreSQL, fake) --------------------------------
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3]! + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** The share of the machine's CPU busy over `ms`, before a run: other work on the machine skews every figure. */
async function busyOver(ms: number): Promise<number> {
  const m0 = machineTicks();
  await new Promise((r) => setTimeout(r, ms));
  const m1 = machineTicks();
  return (m1.busy - m0.busy) / Math.max(m1.total - m0.total, 1);
}

// ---- one phase: the engine over one merchant's due orders until every one is final --------
/** Counts the processor's answers and failures as the engine sees them. */
function counted(p: Processor): { processor: Processor; seen: Record<string, number> } {
  const seen: Record<string, number> = {};
  const bump = (k: string) => void (seen[k] = (seen[k] ?? 0) + 1);
  return {
    seen,
    processor: {
      ...p,
      name: p.name,
      async authorize(req) {
        try {
          const a = await p.authorize(req);
          bump(a.replayed ? 'answered (replayed)' : a.approved ? 'approved' : 'declined');
          return a;
        } catch (err) {
          bump(err instanceof GatewayError ? `failed: ${err.kind}` : 'failed: other');
          throw err;
        }
      },
    },
  };
}

interface PhaseResult {
  rate: Rate;
  done: boolean;
  open: number;
  engineCpuS: number;
  machineBusy: number;
  seen: Record<string, number>;
}

async function phase(b: Bench, label: string, merchantId: string, processor: Processor, limits: Limits, n: number, deadlineMs: number): Promise<PhaseResult> {
  const config: EngineConfig = {
    ...DEFAULT_ENGINE_CONFIG, claimBatchSize: Number(opts.batch), concurrency: limits.concurrency, ratePerSecond: limits.ratePerSecond,
    pollIntervalMs: 10, sweepCron: '0 0 0 1 1 *', reconcileAfterMs: limits.reconcileAfterMs, reconcileTimeoutMs: 3_600_000,
  };
  const c = counted(processor);
  const engine = createEngine({ db: b.db, processor: c.processor, clock: systemClock, log, config });
  const cpu0 = process.cpuUsage();
  const m0 = machineTicks();
  let open = n;
  const poll = b.kind === 'pglite' ? 100 : 25;
  const rate = await measure(label, n, async () => {
    const until = performance.now() + deadlineMs;
    engine.start();
    while ((open = await openOrders(b.db, merchantId)) > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, poll));
    await engine.stop();
  });
  const cpu = process.cpuUsage(cpu0);
  const m1 = machineTicks();
  return { rate: open === 0 ? rate : { ...rate, count: n - open, perSecond: (n - open) / rate.seconds }, done: open === 0, open, engineCpuS: (cpu.user + cpu.system) / 1e6, machineBusy: (m1.busy - m0.busy) / (m1.total - m0.total), seen: c.seen };
}

function describe(r: PhaseResult): string {
  return `engine process CPU ${r.engineCpuS.toFixed(1)} s over ${r.rate.seconds.toFixed(1)} s; machine ${(r.machineBusy * 100).toFixed(0)} % busy (all cores)`;
}

/** The router over the merchant's Stripe account, the fake's URL in place of Stripe's. */
async function stripeRouter(b: Bench, mid: string, fake: FakeHandle, limits: Limits): Promise<Processor> {
  await createAccountService({ db: b.db, ring: b.ring, mode: 'production' }).add(mid, { type: 'stripe', label: 'stripe-bench', credentials: { secretKey: fake.key, rawCardData: true } });
  const settings: ResolvedConfig['processor'] = { ...PROCESSOR_DEFAULTS, ...limits, gatewayUrls: { stripe: fake.url } };
  return createProcessorRouter({ db: b.db, ring: b.ring, vault: b.vault, sandbox: undefined, mode: 'production', settings, log });
}

interface Money {
  approved: number;
  charges: number;
  notOne: number;
  zero: number;
  double: number;
  chargedNotApproved: number;
  unreconciled: number;
  notFinal: number;
  statuses: string;
}

/** The fake's charges against the database's orders of one merchant. */
async function money(b: Bench, merchantId: string, stats: FakeStats): Promise<Money> {
  const rows = await selectRows(b.db, sql`select id, status from orders where merchant_id = ${merchantId}`);
  const byStatus = new Map<string, number>();
  let approved = 0, charges = 0, notOne = 0, zero = 0, double = 0, chargedNotApproved = 0, notFinal = 0;
  for (const r of rows) {
    const status = r.status as string;
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    const n = stats.chargesByOrder[r.id as string] ?? 0;
    charges += n;
    if (n !== 1) notOne++;
    if (n >= 2) double++;
    if (status === 'APPROVED') {
      approved++;
      if (n === 0) zero++;
    } else if (n > 0) chargedNotApproved++;
    if (status === 'SUBMITTED' || status === 'PENDING' || status === 'PROCESSING') notFinal++;
  }
  const unreconciled = await count(b.db, sql`select count(distinct order_session_key)::int as n from attempts where merchant_id = ${merchantId} and status = 'in_flight' and unknown_since is not null`);
  return { approved, charges, notOne, zero, double, chargedNotApproved, unreconciled, notFinal, statuses: [...byStatus].map(([s, n]) => `${n} ${s}`).join(', ') };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const limitsLine = (l: Limits) =>
  `processor.concurrency ${l.concurrency}, ratePerSecond ${l.ratePerSecond}, accountConcurrency ${l.accountConcurrency}, accountRatePerSecond ${l.accountRatePerSecond}, timeoutMs ${l.timeoutMs}, reconcileAfterMs ${l.reconcileAfterMs}, breakerFailures ${l.breakerFailures}`;

/** The most attempts per second the limits allow through one account at this latency. */
function ceiling(l: Limits): { perSecond: number; by: string } {
  const bounds: Array<[number, string]> = [
    [l.ratePerSecond, `ratePerSecond ${l.ratePerSecond}`],
    [l.accountRatePerSecond, `accountRatePerSecond ${l.accountRatePerSecond}`],
    [(l.accountConcurrency * 1000) / Math.max(LATENCY_MS, 1), `accountConcurrency ${l.accountConcurrency} / ${LATENCY_MS} ms`],
    [(l.concurrency * 1000) / Math.max(LATENCY_MS, 1), `processor.concurrency ${l.concurrency} / ${LATENCY_MS} ms`],
  ];
  const [perSecond, by] = bounds.sort((a, b) => a[0] - b[0])[0]!;
  return { perSecond, by };
}

// ---- a whole run on one database ------------------------------------------------------
async function run(kind: DbKind, budgetMs: number): Promise<{ moneyOk: boolean; targetOk: boolean } | 'skipped'> {
  const started = performance.now();
  const left = () => budgetMs - (performance.now() - started);
  const b = await openBench(kind);
  const fakeOpts: FakeOptions = { latencyMs: LATENCY_MS, faultRate: FAULT_RATE, seed: SEED, calls: N * 3 };
  const fake = await startFake(fakeOpts);
  try {
    console.log(`\n-- ${kind === 'postgres' ? 'PostgreSQL' : 'PGlite (in process, one connection)'}: ${fmt(N)} due MIT orders per phase, one card each; Stripe fake ${fake.where}`);
    console.log(`  machine before the run: ${(100 * (await busyOver(1000))).toFixed(0)} % busy over 1 s (other processes; ${availableParallelism()} cores)`);

    const base = await merchant(b, 'Bench sandbox');
    await dueOrders(b, base.id, N);
    const sandbox = createSandboxProcessor({ db: b.db, vault: b.vault, clock: systemClock });
    const baseline = await phase(b, 'sandbox processor, 0 ms', base.id, sandbox, LIMITS, N, Math.min(left(), Number(opts['deadline-s']) * 1000));
    if (!baseline.done) {
      console.log(`  skipped: the sandbox baseline finished ${fmt(baseline.rate.count)} of ${fmt(N)} attempts in ${baseline.rate.seconds.toFixed(1)} s (${fmt(baseline.rate.perSecond)}/s), past the ${(budgetMs / 1000).toFixed(0)} s budget`);
      return 'skipped';
    }

    const gw = await merchant(b, 'Bench Stripe');
    await dueOrders(b, gw.id, N);
    const router = await stripeRouter(b, gw.mid, fake, LIMITS);
    const label = `Stripe connector → fake at ${LATENCY_MS} ms${FAULT_RATE > 0 ? `, ${(FAULT_RATE * 100).toFixed(0)} % faults` : ''}`;
    const opened0 = await circuitOpenings();
    const ours = await phase(b, label, gw.id, router, LIMITS, N, Math.min(left(), Number(opts['deadline-s']) * 1000));
    const opened = (await circuitOpenings()) - opened0;
    const stats = await fake.stats();
    const m = await money(b, gw.id, stats);
    // PGlite is measured only within its budget: an unfinished run there is reported, not judged.
    const partial = !ours.done && Number.isFinite(budgetMs);

    console.log(`  settings: ${limitsLine(LIMITS)}; engine.claimBatchSize ${opts.batch}, pollIntervalMs 10; database pool ${kind === 'postgres' ? opts.pool : 1}`);
    console.log(`  baseline: ${describe(baseline)}`);
    console.log(`  gateway:  ${describe(ours)}; ${Number.isNaN(stats.cpuSeconds) ? 'the fake shares the engine process' : `fake process CPU ${stats.cpuSeconds.toFixed(1)} s`}`);
    report(ours.rate, baseline.rate);
    const targetOk = ours.done && ours.rate.perSecond >= TARGET;
    console.log(`  target ≥ ${fmt(TARGET)} attempts/s through the gateway: ${targetOk ? 'PASS' : 'FAIL'} (${fmt(ours.rate.perSecond)}/s${ours.done ? '' : `, ${fmt(ours.open)} orders not final at the deadline`})${FAULT_RATE > 0 ? ' [with faults: reconciliation waits included]' : ''}${kind === 'pglite' ? ' [informational: the target is for PostgreSQL]' : ''}`);
    console.log(`  calls at the fake: ${fmt(stats.intentCalls)} POST /v1/payment_intents for ${fmt(N)} orders; the engine saw: ${Object.entries(ours.seen).map(([k, v]) => `${fmt(v)} ${k}`).join(', ')}; circuit breaker opened ${opened} times`);
    if (FAULT_RATE > 0) {
      console.log(`  faults injected (seed ${SEED}): ${FAULTS.map((f) => `${fmt(stats.faultsScripted[f])} ${f}`).join(', ')}${stats.scriptExhausted ? ' (script ran out: later calls had none)' : ''}`);
    }
    const perOrder = m.approved > 0 ? m.charges / m.approved : 0;
    const moneyOk = (partial || m.charges === m.approved) && m.double === 0 && m.zero === 0;
    console.log(`  charges per order at the fake: ${perOrder.toFixed(2)} (${fmt(m.charges)} charges / ${fmt(m.approved)} approved orders); orders with ≠ 1 charge: ${fmt(m.notOne)} (none: ${fmt(m.notOne - m.double)}, two or more: ${fmt(m.double)}; approved without a charge: ${fmt(m.zero)}, charged but not approved: ${fmt(m.chargedNotApproved)})`);
    console.log(`  orders left unreconciled (attempt outcome still unknown): ${fmt(m.unreconciled)}; orders not final: ${fmt(m.notFinal)}; orders: ${m.statuses}`);
    console.log(`  money: ${!moneyOk ? 'WRONG' : partial ? 'no order double-charged, none approved without a charge (run unfinished)' : 'OK (exactly one charge per approved order, none double-charged)'}`);
    if (partial) {
      console.log(`  skipped: the gateway phase did not finish within the ${(budgetMs / 1000).toFixed(0)} s budget of this database (${fmt(ours.open)} orders not final); the figures above are partial`);
      return { moneyOk, targetOk: false };
    }

    // The defaults, measured on a sample (no faults: the fake's script is for the main run).
    const sample = Number(opts['defaults-sample']);
    const c = ceiling(DEFAULT_LIMITS);
    if (sample > 0 && FAULT_RATE === 0 && left() > (sample / Math.max(c.perSecond, 1)) * 1000 + 5000) {
      const d = await merchant(b, 'Bench Stripe defaults');
      await dueOrders(b, d.id, sample);
      const dr = await phase(b, `defaults (${fmt(sample)} orders)`, d.id, await stripeRouter(b, d.mid, fake, DEFAULT_LIMITS), DEFAULT_LIMITS, sample, left());
      console.log(`  with the defaults (${limitsLine(DEFAULT_LIMITS)}): ${fmt(dr.rate.perSecond)} attempts/s (${fmt(dr.rate.count)} in ${dr.rate.seconds.toFixed(1)} s)`);
    }
    console.log(`  the defaults allow at most ${fmt(c.perSecond)} attempts/s per account at ${LATENCY_MS} ms (bound: ${c.by}): ${c.perSecond >= TARGET ? 'enough' : `they cannot reach ${fmt(TARGET)}/s; the settings above are needed`}`);
    console.log(`  this database's run took ${((performance.now() - started) / 1000).toFixed(1)} s in all${Number.isFinite(budgetMs) ? ` (budget ${(budgetMs / 1000).toFixed(0)} s)` : ''}`);
    return { moneyOk, targetOk };
  } finally {
    await fake.close();
    await b.tdb.dispose();
  }
}

console.log(`gateways: ${fmt(N)} MIT attempts through the router and the Stripe connector (stripe-node) to a Stripe fake answering after ${LATENCY_MS} ms, against the sandbox processor at 0 ms${FAULT_RATE > 0 ? `; faults on ${(FAULT_RATE * 100).toFixed(0)} % of calls (seed ${SEED})` : ''}`);
let failed = false;
for (const kind of KINDS) {
  const budget = kind === 'pglite' ? Number(opts['pglite-budget-s']) * 1000 : Infinity;
  const r = await run(kind, budget);
  if (r === 'skipped') continue;
  if (!r.moneyOk) failed = true;
  if (FAULT_RATE === 0 && kind === 'postgres' && !r.targetOk) failed = true;
}
process.exit(failed ? 1 : 0);
