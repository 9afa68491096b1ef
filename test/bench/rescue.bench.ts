// Rescue quality: rescued's planner (the real engine on PostgreSQL, on a simulated clock)
// against three fixed retry schedules, on the same simulated payers, for two issuer
// populations documented as data (test/bench/rescue/population*.json). Prints per strategy the
// recovered orders and amount, attempts per recovered order, declined attempts and the
// network-rule violations an independent checker finds; writes the recovery chart as SVG.
// Exits non-zero unless, on every population, rescued recovers more orders and more of the
// amount than every fixed schedule, with fewer attempts per recovery, and breaks no rule.
//   npm run bench -- rescue [--orders 10000] [--seed 1] [--out test/bench/rescue/out/recovery.svg]
//                           [--step-minutes 5] [--population path.json ...] [--rules '<json>']
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); the run
// uses a scratch database of its own and drops it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { recoverySvg, type Panel } from './rescue/chart.ts';
import { runRescued } from './rescue/engine-run.ts';
import { FIXED_STRATEGIES, runFixed } from './rescue/fixed.ts';
import { drawPayers } from './rescue/payers.ts';
import { loadPopulation } from './rescue/population.ts';
import { formatReasonTable, formatTable, shortfalls, summarize } from './rescue/report.ts';
import { resolveRules, type DeepPartial, type Rules } from '../../src/engine/rules.ts';

const here = dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({
  options: {
    orders: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: join(here, 'rescue', 'out', 'recovery.svg') },
    'step-minutes': { type: 'string', default: '5' },
    // What-if runs: planner rules laid over the engine's defaults, e.g. '{"timing":{"genericSpacingGrowthMs":0}}'.
    rules: { type: 'string' },
    population: { type: 'string', multiple: true, default: [join(here, 'rescue', 'population.json'), join(here, 'rescue', 'population-b.json')] },
  },
});
const N = Number(opts.orders);
const SEED = Number(opts.seed);
const STEP_MS = Number(opts['step-minutes']) * 60_000;
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(SEED) || !(STEP_MS > 0)) throw new Error('--orders and --seed take whole numbers, --step-minutes a positive number');
const databaseUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const rules = opts.rules ? resolveRules(JSON.parse(opts.rules) as DeepPartial<Rules>) : undefined;
if (rules) console.log(`planner rules over the defaults: ${opts.rules}`);

const panels: Panel[] = [];
const failures: string[] = [];
const RESCUED = 'rescued (engine + planner)';
for (const file of opts.population) {
  const pop = loadPopulation(file);
  const ctx = { pop, seed: SEED };
  const payers = drawPayers(pop, SEED, N);
  const window = pop.p.retryWindowDays;
  console.log(`\n${pop.name} (${relative(process.cwd(), file)}): ${N} declined rebills, seed ${SEED}, ${window}-day retry window`);
  const engine = await runRescued(ctx, payers, { databaseUrl, stepMs: STEP_MS, ...(rules ? { rules } : {}) });
  console.log(`  rescued ran through the engine on PostgreSQL: ${engine.steps} clock steps of up to ${opts['step-minutes']} min, ${engine.seconds.toFixed(1)} s`);
  const runs = [{ name: RESCUED, trials: engine.trials }, ...FIXED_STRATEGIES.map((s) => ({ name: s.name, trials: runFixed(ctx, s, payers) }))];
  const results = runs.map((r) => summarize(r.name, r.trials, window));
  console.log(`\n${formatTable(results)}\n`);
  console.log(`recovered orders % (attempts per order) by the original decline:\n\n${formatReasonTable(runs)}\n`);
  const missed = shortfalls(results[0]!, results.slice(1));
  for (const m of missed) console.log(`  GOAL NOT MET: ${m}`);
  if (missed.length === 0) console.log('  goal met: rescued recovers more orders and more of the amount than every fixed schedule, with fewer attempts per recovery and 0 violations');
  failures.push(...missed.map((m) => `${pop.name}: ${m}`));
  panels.push({ title: pop.name, results });
}

mkdirSync(dirname(opts.out), { recursive: true });
const date = new Date().toISOString().slice(0, 10);
writeFileSync(opts.out, recoverySvg(panels, `npm run bench -- rescue (${N} orders per population, seed ${SEED}), ${date}`));
console.log(`\nchart: ${relative(process.cwd(), opts.out)}`);
if (failures.length > 0) {
  console.log(`\n${failures.length} shortfall(s): the rescue-quality goal is not met`);
  process.exit(1);
}
