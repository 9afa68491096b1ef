// The planner alone, replayed in a plain loop against the simulated payers: plan() on the
// original decline, each attempt answered by the issuer model at its planned time (rounded up
// to the engine run's clock step), plan() again on the answer, as the engine does, without
// the database. It runs 10,000 orders in seconds, for trying planner rules before the full
// engine run (`npm run bench -- rescue`), whose figures it follows within a few tenths of a
// point (the engine's claims, sweeps and rounding to its clock differ in detail).
//   node test/bench/rescue/replay.ts [--orders 10000] [--seed 1] [--rules '<json>'] [--population path.json ...]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { classifyDecline } from '../../../src/declines/classify.ts';
import { buildMerchantModel } from '../../../src/engine/model.ts';
import type { AttemptRecord } from '../../../src/engine/plan-types.ts';
import { plan } from '../../../src/engine/planner.ts';
import { defaultRules, resolveRules, type DeepPartial, type Rules } from '../../../src/engine/rules.ts';
import { orderUuid } from './engine-run.ts';
import { FIXED_STRATEGIES, runFixed, type Trial } from './fixed.ts';
import { answer, type AttemptLog, type IssuerCtx } from './issuer.ts';
import { drawPayers, type Payer } from './payers.ts';
import { loadPopulation } from './population.ts';
import { formatReasonTable, formatTable, shortfalls, summarize } from './report.ts';

const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;
// The engine run's merchant has no /transmit data: its model is the flat prior.
const FLAT_MODEL = buildMerchantModel([], []);

/** One payer's attempts under the planner, as the engine would send them. */
export function replayPayer(ctx: IssuerCtx, payer: Payer, rules: Rules, stepMs: number): AttemptLog[] {
  const cardBrand = BRAND_NAMES[payer.brand];
  const order = {
    id: orderUuid(ctx.seed, payer.index), amount: payer.amount, currency: 'USD', cardBrand, expiryDateUtc: new Date(payer.expiryMs),
    timezoneUtcOffset: payer.reportedOffsetHours, createdAt: new Date(payer.declineAtMs), isMIT: true,
  };
  const deadline = payer.expiryMs - rules.timing.expiryMarginMs;
  const logs: AttemptLog[] = [];
  const records: AttemptRecord[] = [];
  let decline = classifyDecline({ responseCodeSource: 'NA', responseCode: payer.originalCode, cardBrand, at: order.createdAt }, { rules });
  let nowMs = payer.declineAtMs;
  for (;;) {
    const p = plan({ order, decline, attempts: records, cardAttempts: records, model: FLAT_MODEL, rules, now: new Date(nowMs) });
    if (p.action === 'stop') return logs;
    const due = p.at.getTime();
    // The engine's clock: up to one step late, never past the deadline.
    const atMs = Math.max(due, Math.min(Math.ceil(due / stepMs) * stepMs, deadline - 1000));
    const a = answer(ctx, payer, atMs, logs);
    logs.push({ atMs, ...a });
    records.push({ at: new Date(atMs), responseCode: a.code, adviceCode: a.advice ?? null, approved: a.approved });
    if (a.approved) return logs;
    decline = classifyDecline({ responseCodeSource: 'simulation', responseCode: a.code, merchantAdviceCode: a.advice ?? null, cardBrand, at: new Date(atMs) }, { rules });
    nowMs = atMs;
  }
}

export function replay(ctx: IssuerCtx, payers: readonly Payer[], rules: Rules = defaultRules, stepMs = 5 * 60_000): Trial[] {
  return payers.map((payer) => ({ payer, attempts: replayPayer(ctx, payer, rules, stepMs) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const here = dirname(fileURLToPath(import.meta.url));
  const { values: opts } = parseArgs({
    options: {
      orders: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      rules: { type: 'string' },
      reasons: { type: 'boolean', default: false },
      population: { type: 'string', multiple: true, default: [join(here, 'population.json'), join(here, 'population-b.json')] },
    },
  });
  const rules = opts.rules ? resolveRules(JSON.parse(opts.rules) as DeepPartial<Rules>) : defaultRules;
  for (const file of opts.population) {
    const pop = loadPopulation(file);
    const ctx = { pop, seed: Number(opts.seed) };
    const payers = drawPayers(pop, ctx.seed, Number(opts.orders));
    const runs = [{ name: 'rescued planner (replayed)', trials: replay(ctx, payers, rules) }, ...FIXED_STRATEGIES.map((s) => ({ name: s.name, trials: runFixed(ctx, s, payers) }))];
    const results = runs.map((r) => summarize(r.name, r.trials, pop.p.retryWindowDays));
    console.log(`\n${pop.name}\n${formatTable(results)}`);
    if (opts.reasons) console.log(`\n${formatReasonTable(runs)}`);
    for (const m of shortfalls(results[0]!, results.slice(1))) console.log(`  short: ${m}`);
  }
}
