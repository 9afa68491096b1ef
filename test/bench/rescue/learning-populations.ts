// The populations of the learned-timing bench: population A (test/bench/rescue/population.json)
// over 91 days of weekly cohorts, and variants of it with parameters the planner does not
// know. "deposits 09–15 local" moves every payday's deposit into 09:00–15:00 local; a "random"
// variant draws from the seed its deposit hours anywhere in the day, its pay weekday, its
// semimonthly and monthly pay dates, its mix of pay calendars and its share of issuers that
// block a card after many declines. Nothing here imports the planner or its rules.
import type { Population } from './population.ts';
import { uniform } from './random.ts';

/** Weeks of cohorts: a new week of declined rebills arrives every 7 days. */
export const COHORT_WEEKS = 13;

type Params = Population['p'];

/** Population A with its declines arriving over COHORT_WEEKS weeks from `startUtc`. */
export function cohorts(base: Population, name: string, over: Partial<Params> = {}): Population {
  return { name, file: base.file, p: { ...base.p, arrivalDays: COHORT_WEEKS * 7, ...over } };
}

export function deposits9to15(base: Population): Population {
  return cohorts(base, 'deposits 09–15 local', { depositLocalHours: { from: 9, to: 15 } });
}

/** A population whose pay calendars, deposit hours and issuer velocity come from `seed`. */
export function randomVariant(base: Population, seed: number): Population {
  const u = (key: string) => uniform(seed, 0, 'learning-population', key);
  const from = Math.floor(u('deposit-from') * 20);
  const width = 1 + Math.floor(u('deposit-width') * 4);
  const day = (key: string, lo: number, hi: number) => lo + Math.floor(u(key) * (hi - lo + 1));
  const first = day('semi-1', 1, 14);
  const shares = ['weekly', 'biweekly', 'semimonthly', 'monthly'].map((k) => [k, 0.1 + u(`share-${k}`)] as const);
  const total = shares.reduce((s, [, v]) => s + v, 0);
  const monthly = day('monthly', 1, 31);
  return cohorts(base, `random ${seed}`, {
    depositLocalHours: { from, to: Math.min(24, from + width) },
    payWeekday: day('weekday', 0, 6),
    semimonthlyDays: [{ days: [first, first + day('semi-gap', 13, 16)], share: 1 }],
    monthlyDay: [{ day: monthly > 28 ? 'last_business_day' : monthly, share: 1 }],
    paySchedules: Object.fromEntries(shares.map(([k, v]) => [k, v / total])) as Params['paySchedules'],
    issuerVelocity: { ...base.p.issuerVelocity, share: u('velocity') * 0.6 },
  });
}

/** What a random variant drew, for the bench's output. */
export function describe(pop: Population): string {
  const p = pop.p;
  const sched = Object.entries(p.paySchedules).map(([k, v]) => `${k} ${Math.round(v * 100)} %`).join(', ');
  return `deposits ${p.depositLocalHours.from}–${p.depositLocalHours.to} h local, pay weekday ${p.payWeekday}, semimonthly ${p.semimonthlyDays.map((d) => d.days.join('/')).join(' ')}, ` +
    `monthly ${p.monthlyDay.map((d) => d.day).join(' ')}, ${sched}, velocity blocks ${Math.round(p.issuerVelocity.share * 100)} %`;
}
