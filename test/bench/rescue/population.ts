// The simulated issuer population as data: one schema for the population files
// (population*.json beside this file), the type derived from it. Every parameter carries its
// value with a `source` (where the figure comes from) or an `assumption` (why we chose it when
// no public figure was found), so a reader can weigh each number; a file without either is
// refused. Only the issuer model (issuer.ts, payers.ts) reads these values: the engine and its
// planner never see them, just what a processor answers.
import { readFileSync } from 'node:fs';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Share = Type.Number({ minimum: 0, maximum: 1 });
const Positive = Type.Number({ exclusiveMinimum: 0 });

/** A parameter: its value and where it comes from. */
const param = <T extends TSchema>(value: T) =>
  Type.Object({ value, source: Type.Optional(Type.String({ minLength: 10 })), assumption: Type.Optional(Type.String({ minLength: 10 })) }, { additionalProperties: false });

export const REASONS = [
  'insufficient_funds',
  'limit_exceeded',
  'do_not_honor',
  'issuer_unavailable',
  'expired_card',
  'lost_or_stolen',
  'closed_account',
  'invalid_card_number',
  'suspected_fraud',
  'stop_recurring',
] as const;
export type Reason = (typeof REASONS)[number];

const reasonRecord = <T extends TSchema>(t: T) => Type.Object(Object.fromEntries(REASONS.map((r) => [r, t])) as Record<Reason, T>, { additionalProperties: false });

/** The ISO 8583 code (and Mastercard advice code) each brand's issuers answer for a reason. */
const Codes = Type.Object(
  {
    visa: Type.String({ pattern: '^[0-9A-Z]{2}$' }),
    mastercard: Type.String({ pattern: '^[0-9A-Z]{2}$' }),
    mastercardAdvice: Type.Optional(Type.String({ pattern: '^[0-9]{2}$' })),
    amex: Type.String({ pattern: '^[0-9A-Z]{2}$' }),
  },
  { additionalProperties: false },
);

export const ADVICE_KEYS = ['none', '02', '24', '25', '26', '27', '28', '29', '30'] as const;
export type AdviceKey = (typeof ADVICE_KEYS)[number];

const MonthDay = Type.Union([Type.Integer({ minimum: 1, maximum: 31 }), Type.Literal('last_business_day')]);

const Parameters = Type.Object(
  {
    startUtc: param(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' })),
    arrivalDays: param(Type.Integer({ minimum: 1, maximum: 31 })),
    retryWindowDays: param(Type.Integer({ minimum: 1, maximum: 60 })),
    brands: param(Type.Object({ visa: Share, mastercard: Share, amex: Share }, { additionalProperties: false })),
    timezones: param(Type.Array(Type.Object({ utcOffsetHours: Type.Number({ minimum: -12, maximum: 14 }), share: Share }), { minItems: 1 })),
    timezoneReported: param(Share),
    prices: param(Type.Array(Type.Object({ cents: Type.Integer({ minimum: 11, maximum: 1_000_000 }), share: Share }), { minItems: 1 })),
    reasons: param(reasonRecord(Share)),
    codes: param(reasonRecord(Codes)),
    doNotHonorIsFunds: param(Share),
    paySchedules: param(Type.Object({ weekly: Share, biweekly: Share, semimonthly: Share, monthly: Share }, { additionalProperties: false })),
    payWeekday: param(Type.Integer({ minimum: 0, maximum: 6 })),
    semimonthlyDays: param(Type.Array(Type.Object({ days: Type.Array(MonthDay, { minItems: 2, maxItems: 2 }), share: Share }), { minItems: 1 })),
    monthlyDay: param(Type.Array(Type.Object({ day: MonthDay, share: Share }), { minItems: 1 })),
    depositLocalHours: param(Type.Object({ from: Type.Integer({ minimum: 0, maximum: 23 }), to: Type.Integer({ minimum: 1, maximum: 24 }) }, { additionalProperties: false })),
    paydayCovers: param(Share),
    fundsLastMeanHours: param(Positive),
    fundsNeverRecover: param(Share),
    strayInflowsPer30Days: param(Type.Number({ minimum: 0 })),
    hold: param(Type.Object({ recoverable: Share, resolutionMeanDays: Positive, approveAfter: Share }, { additionalProperties: false })),
    genericApproveChance: param(Share),
    outage: param(Type.Object({ medianMinutes: Positive, sigma: Type.Number({ minimum: 0 }), codes: Type.Array(Type.String({ pattern: '^[0-9]{2}$' }), { minItems: 1 }) }, { additionalProperties: false })),
    afterOutage: param(Type.Object({ approve: Share, funds: Share, hold: Share }, { additionalProperties: false })),
    mastercardAdvice: param(Type.Object(Object.fromEntries(ADVICE_KEYS.map((k) => [k, Share])) as Record<AdviceKey, typeof Share>, { additionalProperties: false })),
    issuerVelocity: param(Type.Object({ share: Share, minDeclines: Type.Integer({ minimum: 1 }), maxDeclines: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const PopulationFileSchema = Type.Object(
  { name: Type.String({ minLength: 1 }), description: Type.String({ minLength: 1 }), parameters: Parameters },
  { additionalProperties: false },
);
export type PopulationFile = Static<typeof PopulationFileSchema>;

type Values<P> = { readonly [K in keyof P]: P[K] extends { value: infer V } ? V : never };

/** A population as the model reads it: the values alone. */
export interface Population {
  name: string;
  file: string;
  p: Values<PopulationFile['parameters']>;
}

export function loadPopulation(path: string): Population {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!Value.Check(PopulationFileSchema, raw)) {
    const first = [...Value.Errors(PopulationFileSchema, raw)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
    throw new Error(`${path} is not a population file:\n  ${first.join('\n  ')}`);
  }
  const unsourced = Object.entries(raw.parameters).filter(([, v]) => !v.source && !v.assumption).map(([k]) => k);
  if (unsourced.length > 0) throw new Error(`${path}: every parameter needs a source or an assumption (missing: ${unsourced.join(', ')})`);
  const p = Object.fromEntries(Object.entries(raw.parameters).map(([k, v]) => [k, v.value])) as Population['p'];
  if (p.issuerVelocity.minDeclines > p.issuerVelocity.maxDeclines) throw new Error(`${path}: issuerVelocity.minDeclines > maxDeclines`);
  if (p.depositLocalHours.from >= p.depositLocalHours.to) throw new Error(`${path}: depositLocalHours.from must be before .to`);
  return { name: raw.name, file: path, p };
}
