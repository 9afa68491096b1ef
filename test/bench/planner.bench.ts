// Planner throughput: plans per second over varied inputs (Visa/Mastercard/Amex, funds,
// temporary, generic and advice declines, order and card histories, with and without a
// merchant model). Baseline: the same input construction with a trivial Date computation in
// place of plan(), so the ratio shows what planning itself costs. Target ≥ 100,000 plans/s.
import { classifyDecline } from '../../src/declines/classify.ts';
import type { Classification } from '../../src/declines/classify.ts';
import { plan } from '../../src/engine/planner.ts';
import type { AttemptRecord, MerchantModel, PlanInput } from '../../src/engine/plan-types.ts';
import { measure, report } from './lib.ts';

const H = 3_600_000;
const D = 24 * H;
const N = 200_000;
const BRANDS = ['VISA', 'Mastercard', 'AMEX'] as const;
const OFFSETS = [-5, 1, 9.5, -300, 570, 0];
const DECLINES: Classification[] = [
  ['51'], ['05'], ['91'], ['61'], ['51', '25'], ['05', '24'], ['96'],
].flatMap(([code, mac]) => BRANDS.map((cardBrand) => classifyDecline({ responseCodeSource: 'ISO', responseCode: code, cardBrand, merchantAdviceCode: mac })));
const MODEL: MerchantModel = {
  hourWeights: Array.from({ length: 24 }, (_, h) => 1 + Math.sin(h / 3)),
  dayOfMonthWeights: Array.from({ length: 31 }, (_, d) => 1 + (d % 7) / 10),
};
const T0 = Date.UTC(2026, 2, 10, 14);

// Attempt histories are built once (97 start times × 0–4 own attempts × 0–12 other-order
// attempts): the database hands the planner ready arrays, so per plan only the order and the
// input object are built, in both loops alike.
interface History { createdAt: Date; now: Date; attempts: AttemptRecord[]; cardAttempts: AttemptRecord[] }
const HISTORIES: History[] = [];
for (let c = 0; c < 97; c++) {
  for (let n = 0; n < 5; n++) {
    for (let others = 0; others < 13; others++) {
      const createdAt = new Date(T0 + c * 7 * H);
      const attempts: AttemptRecord[] = [];
      for (let k = 0; k < n; k++) attempts.push({ at: new Date(createdAt.getTime() + (k + 1) * 20 * H), responseCode: '51', approved: false });
      const now = new Date(createdAt.getTime() + (n + 1) * 20 * H + 60_000);
      const cardAttempts = attempts.concat(
        Array.from({ length: others }, (_, k) => ({ at: new Date(now.getTime() - (k + 1) * 2 * D), responseCode: '05', approved: false })),
      );
      HISTORIES.push({ createdAt, now, attempts, cardAttempts });
    }
  }
}

function buildInput(i: number): PlanInput {
  const h = HISTORIES[i % HISTORIES.length] as History;
  return {
    order: {
      id: `order-${i}`,
      amount: 1999,
      currency: 'USD',
      cardBrand: BRANDS[i % 3],
      expiryDateUtc: new Date(h.createdAt.getTime() + (5 + (i % 20)) * D),
      timezoneUtcOffset: OFFSETS[i % OFFSETS.length],
      createdAt: h.createdAt,
      isMIT: true,
    },
    decline: DECLINES[i % DECLINES.length] as Classification,
    attempts: h.attempts,
    cardAttempts: h.cardAttempts,
    model: i % 3 === 0 ? MODEL : undefined,
    now: h.now,
  };
}

let sink = 0;
function baselineLoop(): void {
  for (let i = 0; i < N; i++) {
    const input = buildInput(i);
    sink += new Date(input.now.getTime() + H).getTime() & 1;
  }
}
function planLoop(): void {
  for (let i = 0; i < N; i++) {
    const p = plan(buildInput(i));
    sink += p.action === 'retry' ? p.at.getTime() & 1 : 1;
  }
}

// Warm both paths so neither pays the JIT in the measured run.
for (let i = 0; i < 20_000; i++) plan(buildInput(i));
baselineLoop();

console.log('planner.plan');
const baseline = await measure('input construction + Date', N, baselineLoop);
const ours = await measure('input construction + plan()', N, planLoop);
report(ours, baseline, { perSecond: 100_000 });

const CLASSIFY_INPUTS = [
  { responseCodeSource: 'Stripe', responseCode: 'insufficient_funds', cardBrand: 'VISA' },
  { responseCodeSource: 'NA', responseCode: 'NA', responseDescription: 'Declined - do not try again', cardBrand: 'Mastercard' },
  { responseCodeSource: 'Checkout.com', responseCode: '20051', cardBrand: 'VISA' },
  { responseCodeSource: 'ISO', responseCode: '05', cardBrand: 'Mastercard', merchantAdviceCode: '25' },
];
console.log('classifyDecline (for reference)');
const copyOnly = await measure('input copy', N, () => {
  for (let i = 0; i < N; i++) sink += Object.keys({ ...CLASSIFY_INPUTS[i % 4] }).length;
});
const classified = await measure('input copy + classifyDecline()', N, () => {
  for (let i = 0; i < N; i++) sink += classifyDecline({ ...CLASSIFY_INPUTS[i % 4] }).class.length;
});
report(classified, copyOnly);
if (sink === -1) console.log(sink);
