// Attempts per second through the engine (claim → attempt row → sandbox processor at zero
// latency → record and re-plan, with the outbox event), on PostgreSQL, beside a bare
// claim-and-update loop over the same table in the same run (one claim statement per batch,
// one UPDATE per order: the floor of any engine on this database). Target ≥ 2,000 attempts/s.
// The engine runs as the daemon runs it (start: polling, claims while attempts are in flight)
// until every order is final; --once drives it with runOnce (one claim at a time) instead.
// --learning off runs the engine with engine.learning off; --learning both runs it with learning
// off, then on (fresh orders each), and prints what counting the outcomes costs (on / off).
// --submitted hands the engine's orders over SUBMITTED, as a batch file's are: each is planned
// from its original decline (91, issuer unavailable: due at once) before its first attempt,
// and the planning counts in the time.
//   npm run bench -- attempts [--orders 10000] [--concurrency 128] [--batch 200] [--once] [--explain] [--learning on|off|both] [--submitted]
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
// --explain also prints the claim and sweep query plans with many orders not due.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import PQueue from 'p-queue';
import { ManualClock } from '../../src/clock.ts';
import { cards, orders } from '../../src/db/schema.ts';
import { claimDueOrders, selectRows } from '../../src/db/queries/claim-orders.ts';
import { createEngine } from '../../src/engine/index.ts';
import { resolveRules } from '../../src/engine/rules.ts';
import { createSandboxProcessor } from '../../src/processors/sandbox.ts';
import { sealCard } from '../../src/vault/sealed-card.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';
import { silentLog } from '../helpers/db.ts';
import { DEFAULT_ENGINE_CONFIG, engineFixture, insertTestOrders, type EngineFixture } from '../helpers/engine.ts';
import { measure, report } from './lib.ts';

const { values: opts } = parseArgs({ options: { orders: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '128' }, batch: { type: 'string', default: '200' }, explain: { type: 'boolean', default: false }, once: { type: 'boolean', default: false }, learning: { type: 'string', default: 'on' }, submitted: { type: 'boolean', default: false } } });
const N = Number(opts.orders);
const CONCURRENCY = Number(opts.concurrency);
const BATCH = Number(opts.batch);
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

const NOW = new Date('2026-03-10T12:00:00Z');
const approve = sandboxTestCards().find('4111111111111111')!;

/**
 * N distinct cards (one per order, as a real book of rebills has), each holding the approving
 * test number: the network caps count per card, so one shared card would be capped at once.
 */
async function cardTokens(f: EngineFixture, n: number): Promise<string[]> {
  const rows = Array.from({ length: n }, () => {
    const token = `tok_${randomBytes(24).toString('base64url')}`;
    return {
      token, merchantId: f.merchantId, fingerprint: randomBytes(16).toString('hex'), keyId: f.ring.activeKeyId,
      sealed: sealCard(f.ring, f.merchantId, token, { pan: approve.number, holderName: 'Bench Payer' }),
      bin: '411111', last4: '1111', expMonth: 12, expYear: 2035, brand: 'VISA', test: true,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await f.db.insert(cards).values(rows.slice(i, i + 1000));
  return rows.map((r) => r.token);
}

async function dueOrders(f: EngineFixture, tokens: string[], submitted = false): Promise<void> {
  const specs = tokens.map((token) => ({ card: approve, token, merchantId: f.merchantId, createdAt: new Date(NOW.getTime() - 86_400_000), expiresAt: new Date(NOW.getTime() + 20 * 86_400_000), status: submitted ? ('SUBMITTED' as const) : ('PENDING' as const), nextAttemptAt: NOW, ...(submitted ? { declineCode: '91' } : {}) }));
  await insertTestOrders(f.db, specs);
}

const f = await engineFixture('postgres', { poolSize: 20 });
try {
  const clock = new ManualClock(NOW);
  console.log(`attempts on PostgreSQL: ${N} due orders, one card each, sandbox processor at 0 ms, concurrency ${CONCURRENCY}, claim batch ${BATCH}`);

  // Baseline: the bare loop — claim a batch in one statement, one UPDATE per order.
  await dueOrders(f, await cardTokens(f, N));
  const bare = new PQueue({ concurrency: CONCURRENCY });
  const baseline = await measure('bare claim + update loop', N, async () => {
    for (;;) {
      const claimed = await claimDueOrders(f.db, 'bare', clock.now(), new Date(NOW.getTime() + 60_000), BATCH);
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((o) => bare.add(() => f.db.update(orders).set({ status: 'APPROVED', leaseOwner: null, finishedAt: NOW }).where(eq(orders.id, o.id)))));
    }
  });

  const modes = opts.learning === 'both' ? (['off', 'on'] as const) : opts.learning === 'off' ? (['off'] as const) : (['on'] as const);
  const runs: Array<Awaited<ReturnType<typeof measure>>> = [];
  for (const learning of modes) runs.push(await engineRun(clock, learning));
  report(runs.at(-1)!, baseline, { perSecond: 2000 });
  if (runs.length === 2) console.log(`  engine.learning on / off: ${(runs[1]!.perSecond / runs[0]!.perSecond).toFixed(3)} of the attempts per second (the outcomes counted in memory, written once a second)`);

  if (opts.explain) await explain(f);
} finally {
  await f.close();
}

/** The engine through N fresh due orders with engine.learning set. */
async function engineRun(clock: ManualClock, learning: 'on' | 'off') {
  await dueOrders(f, await cardTokens(f, N), opts.submitted);
  const processor = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
  const config = { ...DEFAULT_ENGINE_CONFIG, claimBatchSize: BATCH, concurrency: CONCURRENCY, ratePerSecond: 1_000_000, pollIntervalMs: 10, sweepCron: '0 0 0 1 1 *', learning };
  // A plan is at least a minute ahead (timing.minLeadMs) on a clock that does not move here: the
  // first plans are made due when made, so the minute is not in the figures (as the e2e bench does).
  const rules = opts.submitted ? resolveRules({ timing: { minLeadMs: 0 } }) : undefined;
  const engine = createEngine({ db: f.db, processor, clock, log: silentLog, config, rules });
  const open = async () => Number((await selectRows(f.db, sql`select count(*)::int as n from orders where status in ('SUBMITTED', 'PENDING', 'PROCESSING')`))[0]!.n);
  const approved = async () => Number((await selectRows(f.db, sql`select count(*)::int as n from attempts where status = 'approved'`))[0]!.n);
  const before = await approved();
  let done = 0;
  const cpu0 = process.cpuUsage();
  const ours = await measure(`engine attempts (sandbox, 0 ms${opts.once ? ', runOnce' : ''}${opts.submitted ? ', handed over SUBMITTED' : ''}, engine.learning ${learning})`, N, async () => {
    if (opts.once) {
      for (let n; (n = await engine.runOnce()) > 0; ) done += n;
      return;
    }
    engine.start();
    while ((await open()) > 0) await new Promise((r) => setTimeout(r, 50));
    await engine.stop();
    done = (await approved()) - before;
  });
  const cpu = process.cpuUsage(cpu0);
  console.log(`  engine process CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s over ${ours.seconds.toFixed(1)} s (the rest is waiting on PostgreSQL)`);
  if (done !== N) throw new Error(`expected ${N} attempts, ran ${done}`);
  return ours;
}

/** The claim and sweep plans with many orders that are not due (or final). */
async function explain(fx: EngineFixture): Promise<void> {
  const extra = 200_000;
  const tokens = await cardTokens(fx, 1000);
  for (let i = 0; i < extra; i += 5000) {
    const specs = Array.from({ length: 5000 }, (_, k) => ({
      card: approve, token: tokens[(i + k) % tokens.length]!, merchantId: fx.merchantId, createdAt: NOW, expiresAt: new Date(NOW.getTime() + 20 * 86_400_000),
      status: 'PENDING' as const, nextAttemptAt: new Date(NOW.getTime() + (1 + ((i + k) % 20)) * 86_400_000),
    }));
    await insertTestOrders(fx.db, specs);
  }
  await fx.db.execute(sql`analyze orders`);
  const total = await selectRows(fx.db, sql`select status, count(*)::int as n from orders group by status order by status`);
  console.log(`\nquery plans with ${total.map((r) => `${r.n} ${r.status}`).join(', ')}:`);
  const at = NOW.toISOString();
  const plans: Array<[string, ReturnType<typeof sql>]> = [
    ['claim (due PENDING → PROCESSING)', sql`explain (analyze, costs off, timing off, summary off) with due as (select id from orders where status = 'PENDING' and next_attempt_at <= ${at}::timestamptz order by next_attempt_at limit 200 for update skip locked) update orders o set status = 'PROCESSING' from due where o.id = due.id returning o.id`],
    ['expiry sweep', sql`explain (analyze, costs off, timing off, summary off) with due as (select id, status from orders where status in ('SUBMITTED', 'PENDING', 'CHALLENGE') and expires_at <= ${at}::timestamptz order by expires_at limit 1000 for update skip locked) update orders o set status = 'EXPIRED' from due where o.id = due.id returning o.id`],
    ['lease sweep', sql`explain (analyze, costs off, timing off, summary off) with lost as (select id from orders where status = 'PROCESSING' and lease_expires_at <= ${at}::timestamptz order by lease_expires_at limit 1000 for update skip locked) update orders o set status = 'PENDING' from lost where o.id = lost.id returning o.id`],
  ];
  for (const [name, q] of plans) {
    const rows = await selectRows(fx.db, q);
    console.log(`\n-- ${name}\n${rows.map((r) => Object.values(r)[0]).join('\n')}`);
  }
}
