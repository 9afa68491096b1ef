// The fault campaign (docs/reliability.md): the real daemon (a child process, on a private
// PostgreSQL cluster), the OpenSSH sftp client, the e2e webhook receiver and the gateway
// fakes; faults injected at seeded random moments (SIGKILL, PostgreSQL restarted or stopped,
// a full disk, gateway timeouts/resets/5xx/429, the receiver down); then, once everything
// is settled, the database, the outbound files, the receiver and the fakes are checked.
//   npm run bench -- faults [--quick] [--seed N] [--trials N] [--only name,name] [--settle-s S] [--verbose] [--daemon-log FILE]
// Prints one table; exits non-zero when any column is not 0 or a trial broke an expectation.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { add, checkTrial, settled, ZERO, type Counts, type TrialFile } from './faults/check.ts';
import { startFakes } from './faults/fakes.ts';
import { startPrivatePg, type PrivatePg } from './faults/pg.ts';
import { trialRandom } from './faults/random.ts';
import { ALL_SCENARIOS, QUICK_SCENARIOS, SCENARIOS, type Scenario, type TrialCtx } from './faults/scenarios.ts';
import { printTable, type Row } from './faults/table.ts';
import { mountTmpfs, type Tmpfs } from './faults/tmpfs.ts';
import { makeWorld } from './faults/world.ts';
import { keepDaemonLogs } from './faults/daemon.ts';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seed: { type: 'string' },
    trials: { type: 'string' },
    only: { type: 'string', default: '' },
    'settle-s': { type: 'string' },
    verbose: { type: 'boolean', default: false },
    'daemon-log': { type: 'string' },
  },
});
const QUICK = opts.quick;
if (opts['daemon-log']) keepDaemonLogs(opts['daemon-log']);
const SEED = Number(opts.seed ?? Math.floor(Math.random() * 2 ** 31));
const TRIALS = Number(opts.trials ?? (QUICK ? 1 : 20));
const SETTLE_MS = Number(opts['settle-s'] ?? (QUICK ? 90 : 600)) * 1000;
const only = opts.only.split(',').filter(Boolean);
const chosen = only.length ? ALL_SCENARIOS.filter((s) => only.some((o) => s.name.includes(o))) : QUICK ? QUICK_SCENARIOS : SCENARIOS;

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000, pollMs = 100): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await Promise.resolve().then(check).catch(() => false)) return;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const cleanups: Array<() => void> = [];
function cleanAll(): void {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      c();
    } catch (err) {
      console.error('clean-up failed:', err);
    }
  }
}
process.on('exit', cleanAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));

async function runScenario(s: Scenario, pg: PrivatePg): Promise<Row> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'rescued-faults-fakes-'));
  // Removed by the world's close, or here when the run is interrupted.
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const fakes = await startFakes(dir);
  let tmpfs: Tmpfs | undefined;
  if (s.world.tmpfs) {
    tmpfs = mountTmpfs(8);
    cleanups.push(tmpfs.unmount);
  }
  const w = await makeWorld({ name: s.name, pg, fakes, gateways: s.world.gateways, config: s.world.config, sftpRoot: tmpfs?.dir, startTimeoutMs: 180_000 });
  cleanups.push(() => rmSync(w.dir, { recursive: true, force: true }));
  let counts: Counts = ZERO;
  let parked = 0;
  let errors = 0;
  const notes: string[] = [];
  try {
    for (let n = 1; n <= TRIALS; n++) {
      const trialNotes: string[] = [];
      const ctx: TrialCtx = {
        w, fakes, pg, tmpfs, quick: QUICK, n, random: trialRandom(SEED, `${s.name}#${n}`), until,
        note: (l) => trialNotes.push(l),
        fail: (l) => {
          errors++;
          trialNotes.push(`FAILED: ${l}`);
        },
      };
      let files: TrialFile[] = [];
      const chargedBefore = fakes.chargesByAmount();
      try {
        if (n > 1) await w.nextMerchant();
        files = await s.trial(ctx);
        await w.daemon.up();
        const names = files.map((f) => f.name);
        await until(async () => (await w.makeDue(names), settled(w, files)), 'every order final, every file written, every event delivered', SETTLE_MS, 1000);
      } catch (err) {
        ctx.fail((err as Error).message.split('\n')[0]!);
      }
      const before = { ...counts };
      if (files.length) {
        const got = await checkTrial(w, fakes, files, trialNotes, chargedBefore).catch((err: Error) => (ctx.fail(`check: ${err.message}`), { counts: ZERO, parked: 0 }));
        counts = add(counts, got.counts);
        parked += got.parked;
      }
      const bad = JSON.stringify(before) !== JSON.stringify(counts) || trialNotes.some((l) => l.startsWith('FAILED'));
      if (bad || opts.verbose) notes.push(`  ${s.name} #${n}: ${trialNotes.join('; ')}`);
      if (bad) notes.push(`    daemon output (tail):\n${w.daemon.tail().split('\n').slice(-40).map((l) => `      ${l.slice(0, 400)}`).join('\n')}`);
    }
  } finally {
    await w.close().catch(() => {});
    await fakes.close();
    tmpfs?.unmount();
    rmSync(dir, { recursive: true, force: true });
  }
  const unexpected = w.daemon.unexpectedExits();
  return { scenario: s.name, trials: TRIALS, counts, errors, parked, restartsBySupervisor: unexpected, seconds: (Date.now() - started) / 1000, notes };
}

async function main(): Promise<number> {
  const t0 = Date.now();
  console.log(`fault campaign: ${QUICK ? 'quick' : 'full'}, ${TRIALS} trial(s) per scenario, seed ${SEED} (--seed ${SEED} runs the same faults again)`);
  console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const pg = await startPrivatePg();
  cleanups.push(pg.remove);
  const rows: Row[] = [];
  try {
    for (const s of chosen) {
      const row = await runScenario(s, pg);
      rows.push(row);
      console.log(`  ${s.name}: ${row.seconds.toFixed(1)} s${row.notes.length ? '\n' + row.notes.join('\n') : ''}`);
    }
  } finally {
    pg.remove();
  }
  printTable(rows);
  const seconds = (Date.now() - t0) / 1000;
  console.log(`${seconds.toFixed(0)} s in all; load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; seed ${SEED}`);
  const failed = rows.some((r) => r.errors > 0 || Object.values(r.counts).some((v) => v !== 0));
  return failed ? 1 : 0;
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
cleanAll();
