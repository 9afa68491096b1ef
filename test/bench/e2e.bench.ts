// A rebill file end to end, as a merchant lives it: the real daemon (`rescued serve`, a child
// process, on PostgreSQL), a file of --entries MIT rebills uploaded with OpenSSH's sftp, every
// order charged through the merchant's Stripe account at a local fake answering after
// --latency ms (a seeded mix, e2e/fate.ts: most approve at the first attempt, some decline soft
// and are planned for later, some hard), every final order's webhook delivered to a receiver
// that verifies its signature. Measured from the upload's start: the ack written; every
// order's first attempt made; the webhook of every order final after its first attempt; then
// the orders planned for later made due (as the fault campaign does: only the clock is
// skipped), the results file and the last webhook. Printed: each stage's start, end and rate,
// the whole time, the daemon's peak RSS (VmHWM), charges per approved order at the fake and
// webhooks per final order (both must be 1.00: the exit status is non-zero otherwise).
//   npm run bench -- e2e [--entries 1000000] [--seed 1] [--latency 50] [--account-rate 1000]
//     [--account-concurrency 128] [--concurrency 256] [--rate 2500] [--claim-batch 200] [--pool 20]
//     [--webhook-concurrency 32] [--webhook-in-flight 64] (the defaults of webhooks.*)
//     [--timeout-s 3600] [--daemon-log FILE]
// The planner puts every plan at least a minute ahead (engine timing minLeadMs): the bench
// makes each order's first plan due when it is made, so that minute is not in the figures.
// PostgreSQL from TEST_DATABASE_URL (a database of its own, dropped at the end), else a
// private cluster (faults/pg.ts).
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { createServerDatabase } from '../helpers/db.ts';
import { sftp } from '../helpers/sftp.ts';
import { keepDaemonLogs, supervise } from './faults/daemon.ts';
import { freePort, startPrivatePg } from './faults/pg.ts';
import { DEFAULT_MIX, fateOf, type Fate } from './e2e/fate.ts';
import { startE2eReceiver } from './e2e/receiver.ts';
import type { FakeStats } from './e2e/stripe-fake.ts';
import { printStages, type Stage } from './e2e/table.ts';
import { addMerchant, writeConfig, writeRebills, type Settings } from './e2e/world.ts';

const { values: opts } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'e2e'),
  options: {
    entries: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    latency: { type: 'string', default: '50' },
    'account-rate': { type: 'string', default: '1000' },
    'account-concurrency': { type: 'string', default: '128' },
    concurrency: { type: 'string', default: '256' },
    rate: { type: 'string', default: '2500' },
    'claim-batch': { type: 'string', default: '200' },
    pool: { type: 'string', default: '20' },
    'webhook-concurrency': { type: 'string', default: '32' },
    'webhook-in-flight': { type: 'string', default: '64' },
    'timeout-s': { type: 'string' },
    'daemon-log': { type: 'string' },
  },
});
const N = Number(opts.entries);
const SEED = Number(opts.seed);
const LATENCY = Number(opts.latency);
const TIMEOUT_MS = Number(opts['timeout-s'] ?? Math.max(300, N / 250)) * 1000;
const settings: Settings = {
  accountRatePerSecond: Number(opts['account-rate']), accountConcurrency: Number(opts['account-concurrency']),
  concurrency: Number(opts.concurrency), ratePerSecond: Number(opts.rate), claimBatchSize: Number(opts['claim-batch']), poolSize: Number(opts.pool),
  webhookConcurrency: Number(opts['webhook-concurrency']), webhookMaxInFlight: Number(opts['webhook-in-flight']),
};
if (opts['daemon-log']) keepDaemonLogs(opts['daemon-log']);

const cleanups: Array<() => unknown> = [];
async function cleanAll(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve().then(c).catch((err: unknown) => console.error('clean-up failed:', err));
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void cleanAll().then(() => process.exit(130)));

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The gateway fake in its own process; stats() asks it over IPC. */
async function forkFake(): Promise<{ url: string; key: string; stats(): Promise<FakeStats>; close(): void }> {
  const child = fork(join(import.meta.dirname, 'e2e/stripe-fake.ts'), [JSON.stringify({ latencyMs: LATENCY, seed: SEED, entries: N })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; key: string }));
    child.once('exit', (code) => reject(new Error(`the gateway fake exited (${code})`)));
  });
  return {
    ...ready,
    stats: () => new Promise((resolve) => {
      child.once('message', (m) => resolve(m as FakeStats));
      child.send({ type: 'stats' });
    }),
    close: () => child.connected && child.disconnect(),
  };
}

async function database(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) {
    const db = await createServerDatabase();
    cleanups.push(db.drop);
    return db.url;
  }
  const pg = await startPrivatePg();
  cleanups.push(pg.remove);
  return pg.createDatabase(`e2e_${Date.now().toString(36)}`);
}

function peakRssMiB(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : undefined;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-e2e-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  console.log(`e2e: ${N.toLocaleString('en-US')} entries, seed ${SEED}, gateway latency ${LATENCY} ms; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  settings: processor.accountRatePerSecond ${settings.accountRatePerSecond}, accountConcurrency ${settings.accountConcurrency}, concurrency ${settings.concurrency}, ratePerSecond ${settings.ratePerSecond}; engine.claimBatchSize ${settings.claimBatchSize}; database.poolSize ${settings.poolSize}; sftp.maxFileSizeBytes 8 GiB, quotaBytes 16 GiB; webhooks.perEndpointConcurrency ${settings.webhookConcurrency}, maxInFlight ${settings.webhookMaxInFlight}; other keys at their defaults`);
  const fake = await forkFake();
  cleanups.push(() => fake.close());
  const receiver = await startE2eReceiver({ seed: SEED, entries: N });
  cleanups.push(receiver.close);
  const url = await database();
  const [httpPort, sftpPort] = await Promise.all([freePort(), freePort()]);
  const config = writeConfig({ dir, url, httpPort, sftpPort, stripeUrl: fake.url, settings });
  const m = await addMerchant({ configFile: config.file, dir, receiverUrl: receiver.url, stripeKey: fake.key });
  receiver.trust(m.webhookSecret);

  const fates: Record<Fate, number> = { approve: 0, soft_then_approve: 0, soft_then_hard: 0, hard: 0 };
  for (let n = 0; n < N; n++) fates[fateOf(SEED, n)]++;
  const firstFinal = fates.approve + fates.hard;
  const run = Math.random().toString(36).slice(2, 8).padEnd(6, '0');
  const name = `rebills-${run}.json`;
  const local = join(dir, name);
  const genStarted = Date.now();
  await writeRebills({ path: local, url, vaultKey: config.vaultKey, m, run, entries: N });
  console.log(`  file: ${(statSync(local).size / 1048576).toFixed(0)} MiB written in ${secs(Date.now() - genStarted)} (cards sealed into the vault alongside); mix ${JSON.stringify(fates)} (soft ${DEFAULT_MIX.soft}, hard ${DEFAULT_MIX.hard})`);

  const daemon = supervise({ RESCUED_CONFIG: config.file, MALLOC_ARENA_MAX: '2' }, httpPort, 180_000);
  cleanups.push(() => daemon.stop());
  await daemon.up();
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end({ timeout: 5 }));
  const outbound = join(dir, 'data', 'sftp', m.username, 'outbound');

  const t0 = Date.now();
  const login = { port: sftpPort, username: m.username, key: m.keyPath };
  const upload = sftp(login, [`put ${local} inbound/.${name}.part`, `rename inbound/.${name}.part inbound/${name}`]).then((r) => {
    if (r.status !== 0) throw new Error(`sftp failed (${r.status}): ${r.stderr}`);
    return Date.now();
  });
  let uploadEnd: number | undefined;
  let uploadError: Error | undefined;
  void upload.then((t) => (uploadEnd = t), (err: unknown) => (uploadError = err as Error));
  let ackMs: number | undefined;
  let resultsMs: number | undefined;
  let firstDoneMs: number | undefined;
  let dueMadeMs: number | undefined;
  let allFinalsMs: number | undefined;
  let f: FakeStats;
  let lastDue = 0;
  let timedOut = false;
  for (;;) {
    const now = Date.now();
    ackMs ??= existsSync(join(outbound, `${name}.ack.json`)) ? now : undefined;
    resultsMs ??= existsSync(join(outbound, `${name}.results.json`)) ? now : undefined;
    f = await fake.stats();
    const r = receiver.stats();
    if (r.finals >= N) allFinalsMs ??= r.lastMs;
    if (f.firstCalls >= N) firstDoneMs ??= f.firstEndMs;
    if (resultsMs && allFinalsMs) break;
    if (uploadError) throw uploadError;
    if (now - t0 > TIMEOUT_MS) {
      timedOut = true;
      break;
    }
    if (now - lastDue >= 1000) {
      lastDue = now;
      // First plans made due as they are made; the later ones once every first attempt is made.
      if (firstDoneMs === undefined) {
        await sql`update orders set next_attempt_at = now() where merchant_id = ${m.merchantId} and status = 'PENDING' and attempt_count = 0
          and next_attempt_at > now() and next_attempt_at < now() + interval '30 minutes'`;
      } else {
        const moved = await sql`update orders set next_attempt_at = now() where merchant_id = ${m.merchantId} and status = 'PENDING' and next_attempt_at > now() + interval '5 seconds'`;
        if (moved.count > 0) dueMadeMs ??= now;
      }
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  const peak = peakRssMiB(daemon.pid());
  const r = receiver.stats();
  f = await fake.stats();
  uploadEnd ??= await upload.catch(() => undefined);
  const [db] = await sql`select count(*) filter (where status = 'APPROVED')::int as approved, count(*) filter (where status in ('APPROVED', 'DECLINED', 'EXPIRED', 'CANCELLED'))::int as final,
    count(*)::int as orders, max(finished_at) as last_final from orders where merchant_id = ${m.merchantId}`;
  const lastFinalMs = db!.last_final ? new Date(db!.last_final as string).getTime() : undefined;

  const stages: Stage[] = [
    { name: 'upload (OpenSSH sftp put + rename)', startMs: t0, endMs: uploadEnd, count: N, unit: 'entries' },
    { name: 'ack written (intake)', startMs: t0, endMs: ackMs, count: N, unit: 'entries' },
    { name: 'first attempt of every order', startMs: f.firstStartMs || undefined, endMs: firstDoneMs, count: f.firstCalls, unit: 'attempts' },
    { name: 'webhooks of first-attempt-final orders', startMs: r.firstStartMs || undefined, endMs: r.firstFinals >= firstFinal ? r.firstEndMs : undefined, count: r.firstFinals, unit: 'webhooks' },
    { name: 'later orders made due → last order final', startMs: dueMadeMs, endMs: lastFinalMs, count: fates.soft_then_approve + fates.soft_then_hard, unit: 'orders' },
    { name: 'results file written', startMs: lastFinalMs, endMs: resultsMs, count: N, unit: 'records' },
    { name: 'every webhook delivered', startMs: r.firstStartMs || undefined, endMs: allFinalsMs, count: r.finals, unit: 'webhooks' },
  ];
  console.log();
  printStages(stages, t0);
  const whole = Math.max(resultsMs ?? Date.now(), allFinalsMs ?? Date.now()) - t0;
  const chargesPerApproved = db!.approved ? f.charges / db!.approved : NaN;
  const webhooksPerFinal = db!.final ? (r.finals + r.repeats) / db!.final : NaN;
  console.log(`\n  whole run: ${secs(whole)}${timedOut ? ` (TIMED OUT after ${secs(TIMEOUT_MS)})` : ''}; daemon peak RSS (VmHWM): ${peak ?? '?'} MiB`);
  console.log(`  bench process peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB, gateway fake ${f.rssMiB} MiB`);
  console.log(`  orders ${db!.orders}, final ${db!.final}, approved ${db!.approved} (expected ${fates.approve + fates.soft_then_approve}); gateway calls ${f.calls} (most in flight ${f.maxInFlight}), fake CPU ${f.cpuSeconds.toFixed(0)} s`);
  console.log(`  charges per approved order at the fake: ${chargesPerApproved.toFixed(2)} (charges ${f.charges}, second charges of an order ${f.doubleCharges})`);
  console.log(`  webhooks per final order: ${webhooksPerFinal.toFixed(2)} (deliveries ${r.deliveries}, repeats ${r.repeats}, unverified ${r.unverified}, strays ${r.strays + f.strays})`);
  console.log(`  load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const moneyOk = chargesPerApproved === 1 && webhooksPerFinal === 1 && f.doubleCharges === 0 && r.unverified === 0 && r.strays + f.strays === 0 && db!.final === N && db!.orders === N;
  if (!moneyOk || timedOut) console.log(`  FAILED: ${timedOut ? 'timed out; ' : ''}${moneyOk ? '' : 'money figures not 1.00 or orders not all final'}\n  daemon output (tail):\n${daemon.tail().split('\n').slice(-30).map((l) => `    ${l.slice(0, 300)}`).join('\n')}`);
  return moneyOk && !timedOut ? 0 : 1;
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
await cleanAll();
