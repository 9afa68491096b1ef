// The campaign's scenarios. Each trial uploads its own batch file with the OpenSSH client,
// injects its fault at a moment drawn from the trial's seeded generator (a share of the
// entries ingested, the n-th call at a gateway, the n-th webhook received …), brings the
// world back (daemon started again, database started again, disk space freed, receiver
// up again) and returns its files; the runner then waits until everything is settled and
// counts what is wrong.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialFile } from './check.ts';
import { FAULT_KINDS, GATEWAYS, type Fakes, type Fault, type Gateway } from './fakes.ts';
import type { PrivatePg } from './pg.ts';
import { between, type Random } from './random.ts';
import { fillDisk, type Tmpfs } from './tmpfs.ts';
import type { BatchShape, World, WorldOptions } from './world.ts';

export interface TrialCtx {
  w: World;
  fakes: Fakes;
  pg: PrivatePg;
  random: Random;
  quick: boolean;
  /** Trial number (1-based) within the scenario; file names and amounts derive from it. */
  n: number;
  tmpfs: Tmpfs | undefined;
  /** Polls `check` (errors count as "not yet": the database may be down) until it holds. */
  until(check: () => Promise<boolean> | boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Lines for the report (what was injected, and when). */
  note(line: string): void;
  /** An expectation of the scenario that did not hold (counted in the errors column). */
  fail(line: string): void;
}

export interface Scenario {
  name: string;
  world: Pick<WorldOptions, 'gateways' | 'config'> & { tmpfs?: boolean };
  trial(ctx: TrialCtx): Promise<TrialFile[]>;
}

const file = (c: TrialCtx, entries: number, uploaded = false): TrialFile => ({ name: `${c.w.name}-t${c.n}.json`, entries, accepted: entries, uploaded });
/** Orders' amounts start here (see BatchShape.amountBase); the check counts each trial's charges apart. */
const AMOUNT_BASE = 1000;
/** A trial's file unless said otherwise: one entry in five a hard decline. */
const SHAPE: BatchShape = { amountBase: AMOUNT_BASE, hardEvery: 5 };

/** The trial's orders: put over SFTP when the file is `uploaded`, else seeded into the database. */
async function upload(c: TrialCtx, f: TrialFile, shape: BatchShape = SHAPE): Promise<void> {
  if (!f.uploaded) return c.w.seed(f.name, f.entries, shape);
  const path = await c.w.batch(f.name, f.entries, shape);
  const put = await c.w.put(path, f.name);
  if (put.status !== 0) throw new Error(`sftp put of ${f.name} failed: ${put.stderr}`);
}

/** Entries of the file decided so far (pass two's progress row), or all once its ack is out. */
async function ingested(c: TrialCtx, f: TrialFile): Promise<number> {
  if (existsSync(join(c.w.outbound(), `${f.name}.ack.json`))) return f.entries;
  const rows = await c.w.sql<{ n: number }[]>`select accepted_count + rejected_count as n from batch_progress where merchant_id = ${c.w.merchantId} and file_name = ${f.name}`;
  return rows[0]?.n ?? 0;
}

async function attemptsSince(c: TrialCtx, f: TrialFile): Promise<number> {
  const [row] = await c.w.sql<{ n: number }[]>`
    select count(*)::int as n from attempts a join orders o on o.id = a.order_session_key join batches b on b.id = o.batch_id
    where b.merchant_id = ${c.w.merchantId} and b.file_name = ${f.name}`;
  return row?.n ?? 0;
}

type Fault1 = (c: TrialCtx) => Promise<void>;
const sigkill: Fault1 = async (c) => {
  await c.w.daemon.kill();
  await c.w.daemon.up();
};
const pgRestart: Fault1 = async (c) => c.pg.restart();
const pgDown = (quickMs: number, fullMs: number): Fault1 => async (c) => {
  const ms = c.quick ? quickMs : fullMs;
  c.pg.stop();
  c.note(`PostgreSQL stopped for ${ms} ms`);
  await new Promise((r) => setTimeout(r, ms)); // the fault's length, not a wait for a condition
  c.pg.start();
};

/** A fault once a seeded share of a large file is ingested. */
function duringIntake(name: string, fault: Fault1, entries: { quick: number; full: number }): Scenario {
  return {
    name,
    world: { config: { engine: { enabled: true } } },
    async trial(c) {
      const f = file(c, c.quick ? entries.quick : entries.full, true);
      await c.w.daemon.up();
      // About 200 approving orders, whatever the size: 25 per card, past Visa's 20 reattempts and
      // Mastercard's 35 authorizations in 30 days (each order's original decline counted).
      await upload(c, f, { amountBase: AMOUNT_BASE, approveEvery: Math.max(1, Math.floor(f.entries / 200)) });
      const at = Math.floor(f.entries * (0.05 + 0.85 * c.random()));
      c.note(`fault after ${at} of ${f.entries} entries ingested`);
      await c.until(async () => (await ingested(c, f)) >= at, `${at} entries ingested`, 600_000);
      await fault(c);
      return [f];
    },
  };
}

/**
 * A fault after a seeded number of attempts of the trial's orders started (calls answer after
 * 300 ms), on the sandbox or on gateway fakes: with several, the orders take turns among them.
 */
function duringAttempts(name: string, fault: Fault1, gateways: Gateway[] = []): Scenario {
  return {
    name,
    world: gateways.length ? { gateways } : { config: { processor: { latencyMs: 300 } } },
    async trial(c) {
      for (const g of gateways) c.fakes.latency(g, 300);
      const f = file(c, gateways.length > 1 ? 28 : c.quick ? 24 : 60);
      await c.w.daemon.up();
      await upload(c, f, { ...SHAPE, ...(gateways.length > 1 ? { account: (i: number) => gateways[i % gateways.length]! } : {}) });
      const k = between(c.random, 1, Math.floor(f.entries * 0.8));
      c.note(`fault after ${k} attempts started`);
      await c.until(async () => (await attemptsSince(c, f)) >= k, `${k} attempts`, c.quick ? 60_000 : 300_000);
      await fault(c);
      return [f];
    },
  };
}

const sigkillWebhooks: Scenario = {
  name: 'sigkill-webhooks',
  world: {},
  async trial(c) {
    const f = file(c, c.quick ? 24 : 60);
    c.w.receiver.holdMs(200);
    await c.w.daemon.up();
    const before = c.w.receiver.count();
    await upload(c, f);
    const k = between(c.random, 1, Math.floor(f.entries * 0.8));
    c.note(`SIGKILL after ${k} webhooks received`);
    await c.until(() => c.w.receiver.count() - before >= k, `${k} webhooks`, 300_000);
    await sigkill(c);
    c.w.receiver.holdMs(0);
    return [f];
  },
};

const sigkillResults: Scenario = {
  name: 'sigkill-results',
  world: {},
  async trial(c) {
    // 120 orders: 96 approved over the eight cards, 12 each, under the 15 a card allows a
    // merchant in 30 days (a larger file parks most of its orders on the card caps, rightly).
    const f = file(c, 120);
    await c.w.daemon.up();
    await upload(c, f);
    // Every order final: the next sweeps (one a second) write the results file; the kill
    // falls at a seeded moment in that second.
    await c.until(async () => {
      const [row] = await c.w.sql<{ n: number }[]>`
        select count(*)::int as n from orders o join batches b on b.id = o.batch_id
        where b.merchant_id = ${c.w.merchantId} and b.file_name = ${f.name} and o.status in ('APPROVED', 'EXPIRED')`;
      return row?.n === f.accepted;
    }, 'every order final', 300_000);
    const ms = between(c.random, 0, 1500);
    c.note(`SIGKILL ${ms} ms after every order was final (results ${existsSync(join(c.w.outbound(), `${f.name}.results.json`)) ? 'already' : 'not yet'} written)`);
    await new Promise((r) => setTimeout(r, ms)); // the seeded moment of the fault
    await sigkill(c);
    return [f];
  },
};

const diskFull: Scenario = {
  name: 'disk-full',
  world: { tmpfs: true },
  async trial(c) {
    const first = file(c, 150, true);
    const second = { ...file(c, 60, true), name: `${c.w.name}-t${c.n}-b.json` };
    await c.w.daemon.up();
    await upload(c, first);
    // Full before the ack, or between ack and results, or after both.
    const when = between(c.random, 0, 2);
    // After the ack, intake deletes the file from inbound/: wait for that too, or the space it
    // frees lets the upload below through (seen once in 20 trials).
    const gone = () => existsSync(join(c.w.outbound(), `${first.name}.ack.json`)) && !existsSync(join(c.w.inbound(), first.name));
    if (when >= 1) await c.until(gone, 'the ack, and the file gone from inbound/', 120_000);
    // The results wait for every order to be final: its orders waiting for a later attempt are
    // made due meanwhile, as while a trial settles.
    if (when >= 2) await c.until(async () => (await c.w.makeDue([first.name]), existsSync(join(c.w.outbound(), `${first.name}.results.json`))), 'the results', 120_000);
    const release = fillDisk(c.tmpfs!.dir);
    c.note(`disk filled ${['before the ack', 'after the ack', 'after the results'][when]}`);
    try {
      const path = await c.w.batch(second.name, second.entries, { ...SHAPE, amountBase: AMOUNT_BASE + 5000 });
      const put = await c.w.put(path, second.name);
      if (put.status === 0) c.fail('an upload to a full disk succeeded');
      else if (!/failure|no space|quota|disk/i.test(put.stderr)) c.fail(`upload refused without a clear status: ${put.stderr.trim()}`);
      else c.note(`upload refused: ${put.stderr.trim().split('\n').at(-1)}`);
      const health = await fetch(`${c.w.daemon.base}/healthz`).then((r) => r.status, () => 0);
      if (health !== 200) c.fail(`HTTP /healthz answered ${health} while the disk was full`);
      const ms = between(c.random, 1000, 4000);
      await new Promise((r) => setTimeout(r, ms)); // how long the disk stays full
    } finally {
      release();
    }
    await upload(c, second, { ...SHAPE, amountBase: AMOUNT_BASE + 5000 });
    return [first, second];
  },
};

const gatewayFaults: Scenario = {
  name: 'gateway-faults',
  world: { gateways: [...GATEWAYS] },
  async trial(c) {
    // At most 15 orders per card (see APPROVE), retries included: 36 or 84 orders over 8 cards.
    const f = file(c, c.quick ? 36 : 84);
    const drawn: Record<Fault, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<Fault, number>;
    for (const g of GATEWAYS) {
      const rate = 0.1 + 0.2 * c.random();
      const counts = c.fakes.scriptFaults(g, f.entries, rate, c.random);
      for (const k of FAULT_KINDS) drawn[k] += counts[k];
    }
    c.note(`faults scripted: ${FAULT_KINDS.map((k) => `${k} ${drawn[k]}`).join(', ')}`);
    await c.w.daemon.up();
    await upload(c, f, { amountBase: AMOUNT_BASE, account: (i) => GATEWAYS[i % GATEWAYS.length]! });
    return [f];
  },
};

const webhookDown: Scenario = {
  name: 'webhook-down',
  world: {},
  async trial(c) {
    const f = file(c, c.quick ? 24 : 60);
    await c.w.daemon.up();
    const before = c.w.receiver.count();
    await upload(c, f);
    const k = between(c.random, 0, Math.floor(f.entries / 2));
    await c.until(() => c.w.receiver.count() - before >= k, `${k} webhooks`, 300_000);
    const ms = between(c.random, 2000, c.quick ? 5000 : 30_000);
    c.note(`receiver down after ${k} webhooks, for ${ms} ms`);
    await c.w.receiver.down();
    await new Promise((r) => setTimeout(r, ms)); // how long the receiver stays down
    await c.w.receiver.up();
    return [f];
  },
};

const sigkillIntake = duringIntake('sigkill-intake', sigkill, { quick: 1000, full: 100_000 });
const sigkillAttempts = [duringAttempts('sigkill-attempts-sandbox', sigkill), ...GATEWAYS.map((g) => duringAttempts(`sigkill-attempts-${g}`, sigkill, [g]))];
/** The quick run's stand-in for the six above: one world with every gateway's fake, one kill. */
const sigkillAttemptsGateways = duringAttempts('sigkill-attempts-gateways', sigkill, [...GATEWAYS]);
const rest: Scenario[] = [
  sigkillWebhooks,
  sigkillResults,
  duringIntake('pg-restart-ingest', pgRestart, { quick: 1000, full: 20_000 }),
  duringAttempts('pg-restart-attempts', pgRestart),
  duringAttempts('pg-unreachable', pgDown(5000, 30_000)),
  diskFull,
  gatewayFaults,
  webhookDown,
];

/** The full run: every scenario, each gateway's SIGKILL apart. */
export const SCENARIOS: Scenario[] = [sigkillIntake, ...sigkillAttempts, ...rest];
/** The quick run (.ci/run): every kind of fault once, the gateways' SIGKILL in one world. */
export const QUICK_SCENARIOS: Scenario[] = [sigkillIntake, sigkillAttempts[0]!, sigkillAttemptsGateways, ...rest];
/** What `--only` chooses from. */
export const ALL_SCENARIOS: Scenario[] = [...SCENARIOS, sigkillAttemptsGateways];
