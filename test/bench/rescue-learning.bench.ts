// Learned timing against the static model and the compliant baselines: 91 days of weekly
// cohorts of declined rebills (population A's payers and issuers, test/bench/rescue/), run
// through the real engine on PostgreSQL with engine.learning on and off, and through code-
// aware daily and 8-in-2-weeks schedules that keep the networks' rules. Per population it
// prints recovered orders, attempts per recovery and rule violations (the independent
// checker, the original decline counted), overall and for the orders that arrive after the
// first 30 days (when the table has something to say), and the plan reasons by kind.
// Targets (issue 26, part 3): on random populations, rescued with learning recovers at least
// as many orders as the best compliant baseline with fewer attempts per recovery; on
// "deposits 09–15 local" it closes at least half the gap between rescued without learning
// and the compliant daily retry, after day 30. Exits non-zero when a target is missed.
//   npm run bench -- rescue-learning [--orders 1500] [--seeds 1,2] [--population random|deposits|all] [--step-minutes 10]
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each run
// uses a scratch database of its own and drops it.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DAY_MS } from './rescue/calendar.ts';
import { COMPLIANT_BASELINES, runCompliant } from './rescue/learning-baselines.ts';
import { deposits9to15, describe, randomVariant } from './rescue/learning-populations.ts';
import { runWithLearning } from './rescue/learning-run.ts';
import { FIXED_STRATEGIES, runFixed, type Trial } from './rescue/fixed.ts';
import { drawPayers } from './rescue/payers.ts';
import { loadPopulation, type Population } from './rescue/population.ts';
import { markdownTable, summarize, type StrategyResult } from './rescue/report.ts';

const here = dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({
  options: {
    orders: { type: 'string', default: '1500' },
    seeds: { type: 'string', default: '1,2' },
    population: { type: 'string', default: 'all' },
    'step-minutes': { type: 'string', default: '10' },
  },
});
const N = Number(opts.orders);
const SEEDS = opts.seeds.split(',').map(Number);
const STEP_MS = Number(opts['step-minutes']) * 60_000;
if (!Number.isInteger(N) || N < 1 || SEEDS.some((s) => !Number.isInteger(s)) || !(STEP_MS > 0)) throw new Error('--orders and --seeds take whole numbers, --step-minutes a positive number');
const databaseUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const base = loadPopulation(join(here, 'rescue', 'population.json'));
const LEARN = 'rescued, learning on';
const STATIC = 'rescued, learning off';
const DAILY = COMPLIANT_BASELINES[0]!.name;

interface Row {
  all: StrategyResult;
  late: StrategyResult;
}

const fmt = (r: StrategyResult) => [`${r.recoveredPct.toFixed(2)} %`, r.attemptsPerRecovery.toFixed(2), String(r.violations.attempts)];

async function runPopulation(pop: Population, seed: number): Promise<{ rows: Map<string, Row>; failures: string[]; random: boolean }> {
  const ctx = { pop, seed };
  const payers = drawPayers(pop, seed, N);
  const startMs = Date.parse(pop.p.startUtc);
  console.log(`\n${pop.name}, seed ${seed}: ${N} declined rebills in ${pop.p.arrivalDays / 7} weekly cohorts, ${pop.p.retryWindowDays}-day window`);
  if (pop.name.startsWith('random')) console.log(`  drawn: ${describe(pop)}`);
  const runs: Array<{ name: string; trials: Trial[] }> = [];
  for (const [name, learning] of [[LEARN, 'on'], [STATIC, 'off']] as const) {
    const r = await runWithLearning(ctx, payers, { databaseUrl, stepMs: STEP_MS, learning });
    console.log(`  ${name}: ${r.seconds.toFixed(0)} s; attempts by plan reason: ${Object.entries(r.reasons).map(([k, v]) => `${k} ${v}`).join(', ')}; learned cells ${r.learnedCells}`);
    runs.push({ name, trials: r.trials });
  }
  for (const s of COMPLIANT_BASELINES) runs.push({ name: s.name, trials: runCompliant(ctx, s, payers) });
  runs.push({ name: `${FIXED_STRATEGIES[0]!.name} (naive, reference)`, trials: runFixed(ctx, FIXED_STRATEGIES[0]!, payers) });
  const lateFrom = startMs + 30 * DAY_MS;
  const rows = new Map<string, Row>();
  for (const r of runs) {
    rows.set(r.name, { all: summarize(r.name, r.trials, pop.p.retryWindowDays), late: summarize(r.name, r.trials.filter((t) => t.payer.declineAtMs >= lateFrom), pop.p.retryWindowDays) });
  }
  const table = [...rows.entries()].map(([name, r]) => [name, ...fmt(r.all), ...fmt(r.late).slice(0, 2)]);
  console.log(`\n${markdownTable(['strategy', 'recovered', 'attempts / recovery', 'violations', 'recovered after day 30', 'attempts / recovery after day 30'], table)}\n`);
  return { rows, failures: verdict(pop, seed, rows), random: pop.name.startsWith('random') };
}

function verdict(pop: Population, seed: number, rows: Map<string, Row>): string[] {
  const learn = rows.get(LEARN)!;
  const out: string[] = [];
  if (learn.all.violations.attempts > 0) out.push(`${pop.name} seed ${seed}: ${learn.all.violations.attempts} attempts broke a rule`);
  if (pop.name.startsWith('random')) {
    const best = COMPLIANT_BASELINES.map((b) => rows.get(b.name)!.all).sort((a, b) => b.recoveredPct - a.recoveredPct)[0]!;
    const ok = learn.all.recoveredPct >= best.recoveredPct && learn.all.attemptsPerRecovery < best.attemptsPerRecovery;
    console.log(`  target ${ok ? 'met' : 'NOT met'}: learning ${learn.all.recoveredPct.toFixed(2)} % at ${learn.all.attemptsPerRecovery.toFixed(2)} attempts/recovery against the best compliant baseline ("${best.name}") ${best.recoveredPct.toFixed(2)} % at ${best.attemptsPerRecovery.toFixed(2)}`);
    if (!ok) out.push(`${pop.name} seed ${seed}: below the best compliant baseline`);
  } else {
    const off = rows.get(STATIC)!.late.recoveredPct;
    const daily = rows.get(DAILY)!.late.recoveredPct;
    const on = learn.late.recoveredPct;
    const closed = daily > off ? (on - off) / (daily - off) : on >= off ? 1 : 0;
    const ok = closed >= 0.5;
    console.log(`  target ${ok ? 'met' : 'NOT met'}: after day 30, learning closes ${(closed * 100).toFixed(0)} % of the gap from rescued without learning (${off.toFixed(2)} %) to the compliant daily retry (${daily.toFixed(2)} %): ${on.toFixed(2)} %`);
    if (!ok) out.push(`${pop.name} seed ${seed}: closes ${(closed * 100).toFixed(0)} % of the gap, not half`);
  }
  return out;
}

const populations: Array<[Population, number]> = [];
if (opts.population === 'all' || opts.population === 'deposits') populations.push([deposits9to15(base), SEEDS[0]!]);
if (opts.population === 'all' || opts.population === 'random') for (const s of SEEDS) populations.push([randomVariant(base, s), s]);
const failures: string[] = [];
for (const [pop, seed] of populations) failures.push(...(await runPopulation(pop, seed)).failures);
console.log(failures.length === 0 ? '\nevery target met' : `\n${failures.length} target(s) missed:\n  ${failures.join('\n  ')}`);
process.exit(failures.length === 0 ? 0 : 1);
