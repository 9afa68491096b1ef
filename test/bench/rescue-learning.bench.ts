// Learned timing (docs/engine.md "Learned timing") on worlds the planner cannot have been
// tuned to: every seed draws its own world (test/bench/rescue/world.ts) with its declines
// arriving over 13 weeks, a new cohort each week, and each order's 30-day window, so the run
// spans 90 days and more. rescued runs through the real engine on PostgreSQL (all seeds at
// once, one merchant per seed, so each merchant learns from its own world only) with
// engine.learning "on" and "off", and meets the same orders as the code-aware baselines of
// rescue.bench.ts. Per strategy it prints the mean and 95 % interval over the seeds of
// recovered orders and attempts per recovery, for every order and for those that arrive after
// the first 30 days (the table has had a month to learn), the violations the independent
// checker counts (originals and the merchant's own retries included), and the plan reasons
// by kind (prior or learned).
// Targets (issue 26): on "random", learning on recovers at least as many orders as the best
// compliant baseline with fewer attempts per recovery; on "deposits-9-15", after day 30, it
// closes at least half the gap from rescued without learning to the code-aware daily retry.
// Exits non-zero when a target is missed.
//   npm run bench -- rescue-learning [--seeds 10] [--first-seed 1] [--orders 600] [--population random|deposits-9-15] [--step-minutes 10] [--worlds] [--modes on,off] [--max-attempts N]
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each run
// uses a scratch database of its own and drops it.
import { parseArgs } from 'node:util';
import { BASELINES, runBaseline, type Attempts } from './rescue/baselines.ts';
import { DAY_MS } from './rescue/calendar.ts';
import { runLearningSeeds } from './rescue/learning-seeds.ts';
import { drawPopulation, type Population } from './rescue/orders.ts';
import { compare, formatSeedsTable, interval, seedFigures, type StrategyFigures } from './rescue/seeds-report.ts';
import { describeWorld, drawWorld, POPULATIONS, type PopulationName } from './rescue/world.ts';

const { values: opts } = parseArgs({
  options: {
    seeds: { type: 'string', default: '10' },
    'first-seed': { type: 'string', default: '1' },
    orders: { type: 'string', default: '600' },
    population: { type: 'string', default: 'random' },
    'step-minutes': { type: 'string', default: '10' },
    worlds: { type: 'boolean', default: false },
    // The engine runs: "on,off" (default), or one of them to compare a change with an earlier run.
    modes: { type: 'string', default: 'on,off' },
    // What-if: engine.maxAttemptsPerOrder for the engine runs (default: the configuration's).
    'max-attempts': { type: 'string' },
  },
});
const SEEDS = Number(opts.seeds);
const FIRST = Number(opts['first-seed']);
const N = Number(opts.orders);
const STEP_MS = Number(opts['step-minutes']) * 60_000;
const population = opts.population as PopulationName;
if (![SEEDS, FIRST, N].every((x) => Number.isInteger(x) && x >= 1) || !(STEP_MS > 0)) throw new Error('--seeds, --first-seed and --orders take whole numbers ≥ 1, --step-minutes a positive number');
if (!POPULATIONS.includes(population)) throw new Error(`--population is one of ${POPULATIONS.join(', ')}`);
const databaseUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const COHORT_WEEKS = 13;
const LEARNING_DAYS = 30;

// The seed's world with its declines spread over 13 weeks from the same Monday: a cohort a week.
const pops = Array.from({ length: SEEDS }, (_, i) => {
  const world = drawWorld(FIRST + i, population);
  return drawPopulation({ ...world, startMs: Date.parse('2027-01-11T00:00:00Z'), arrivalDays: COHORT_WEEKS * 7 }, N);
});
console.log(`population "${population}": ${SEEDS} seeds (${FIRST}–${FIRST + SEEDS - 1}), ${N} handed-over orders each over ${COHORT_WEEKS} weekly cohorts, 30-day windows`);
if (opts.worlds) for (const p of pops) console.log(`  ${describeWorld(p.world)}`);

/** The orders that arrive after the first LEARNING_DAYS, as a population of their own. */
const late = (p: Population): Population => ({ ...p, orders: p.orders.filter((o) => o.declineAtMs >= p.world.startMs + LEARNING_DAYS * DAY_MS) });
const runs: Array<{ name: string; attempts: Attempts[] }> = [];
const MODES = opts.modes.split(',');
for (const [name, learning] of ([['rescued, learning on', 'on'], ['rescued, learning off', 'off']] as const).filter(([, m]) => MODES.includes(m))) {
  const r = await runLearningSeeds(pops, { databaseUrl, stepMs: STEP_MS, learning, ...(opts['max-attempts'] ? { maxAttemptsPerOrder: Number(opts['max-attempts']) } : {}) });
  console.log(`  ${name}: ${r.seconds.toFixed(0)} s on PostgreSQL; attempts by plan reason: ${Object.entries(r.reasons).map(([k, v]) => `${k} ${v}`).join(', ')}; learned cells ${r.learnedCells}`);
  runs.push({ name, attempts: r.attempts });
}
const compliant = BASELINES.filter((b) => b.compliant);
for (const b of [...compliant, ...BASELINES.filter((x) => !x.compliant && x.everyHours === 24)]) runs.push({ name: b.name, attempts: pops.map((p) => runBaseline(p, b)) });

const figures = (of: (p: Population) => Population): StrategyFigures[] => runs.map((r) => ({ name: r.name, seeds: pops.map((p, i) => seedFigures(of(p), r.attempts[i]!)) }));
const all = figures((p) => p);
const after = figures(late);
console.log(`\nEvery order (${SEEDS * N}):\n\n${formatSeedsTable(all)}\n`);
console.log(`Orders that arrive after day ${LEARNING_DAYS} (${pops.reduce((s, p) => s + late(p).orders.length, 0)}):\n\n${formatSeedsTable(after)}\n`);
const named = (list: StrategyFigures[], learning: string) => list.find((x) => x.name === `rescued, learning ${learning}`);
// A run without one of the modes compares what it has; the missing one's figures read as the other's.
const on = named(all, 'on') ?? named(all, 'off')!;
const off = named(all, 'off') ?? on;
for (const c of compare(on, all.filter((s) => s !== on && !s.name.includes('naive')))) console.log(`  ${c.verdict === 'loses' ? 'LEARNING LOSES:' : '-'} ${c.line}`);

const mean = (s: StrategyFigures, k: 'recoveredPct' | 'attemptsPerRecovery') => interval(s.seeds.map((f) => f[k])).mean;
const failures: string[] = [];
// Learning moves attempts only inside the window the planner's rules allow, so it breaks
// what the static engine breaks and no more: the counts are printed side by side. The ones
// that need the merchant's own retries or the originals' advice to be seen
// (transaction.priorAttempts, transaction.merchantAdviceCode, counted originals) are for the
// engine to read, not for the timing: reported here, failed by rescue.bench.ts.
const sum = (s: StrategyFigures, k: 'attempts' | 'blind') => s.seeds.reduce((t, f) => t + (k === 'blind' ? f.blindViolations : f.violations.attempts), 0);
console.log(`\nviolations, learning on / off: ${sum(on, 'attempts')} / ${sum(off, 'attempts')}; of them without the merchant's retries and the originals' advice: ${sum(on, 'blind')} / ${sum(off, 'blind')}`);
if (population === 'random') {
  const best = all.filter((s) => compliant.some((b) => b.name === s.name)).sort((a, b) => mean(b, 'recoveredPct') - mean(a, 'recoveredPct'))[0]!;
  const ok = mean(on, 'recoveredPct') >= mean(best, 'recoveredPct') && mean(on, 'attemptsPerRecovery') < mean(best, 'attemptsPerRecovery');
  console.log(`\ntarget ${ok ? 'met' : 'NOT met'}: learning on recovers ${mean(on, 'recoveredPct').toFixed(2)} % at ${mean(on, 'attemptsPerRecovery').toFixed(2)} attempts per recovery; the best compliant baseline ("${best.name}") ${mean(best, 'recoveredPct').toFixed(2)} % at ${mean(best, 'attemptsPerRecovery').toFixed(2)}; learning off ${mean(off, 'recoveredPct').toFixed(2)} % at ${mean(off, 'attemptsPerRecovery').toFixed(2)}`);
  if (!ok) failures.push('below the best compliant baseline (recovered orders, or attempts per recovery)');
} else {
  const [lon, loff] = [named(after, 'on') ?? named(after, 'off')!, named(after, 'off') ?? named(after, 'on')!];
  const daily = after.find((s) => s.name === compliant.find((b) => b.everyHours === 24)!.name)!;
  const gap = mean(daily, 'recoveredPct') - mean(loff, 'recoveredPct');
  const closed = gap > 0 ? (mean(lon, 'recoveredPct') - mean(loff, 'recoveredPct')) / gap : mean(lon, 'recoveredPct') >= mean(loff, 'recoveredPct') ? 1 : 0;
  console.log(`\ntarget ${closed >= 0.5 ? 'met' : 'NOT met'}: after day ${LEARNING_DAYS}, learning closes ${(closed * 100).toFixed(0)} % of the gap from rescued without learning (${mean(loff, 'recoveredPct').toFixed(2)} %) to the code-aware daily retry (${mean(daily, 'recoveredPct').toFixed(2)} %): ${mean(lon, 'recoveredPct').toFixed(2)} %`);
  if (closed < 0.5) failures.push(`closes ${(closed * 100).toFixed(0)} % of the gap to the daily retry, not half`);
}
console.log(failures.length === 0 ? 'every target met' : `${failures.length} target(s) missed:\n  ${failures.join('\n  ')}`);
process.exit(failures.length === 0 ? 0 : 1);
