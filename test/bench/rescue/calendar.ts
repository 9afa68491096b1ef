// The payers' pay calendars, in their local days. Written here with Date.UTC on purpose rather
// than with the engine's time helpers: the simulated world must not share code with the
// planner it judges. Days are whole days since 1970-01-01 in the payer's local time.

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export type MonthDay = number | 'last_business_day';

export type PaySchedule =
  | { kind: 'weekly'; weekday: number }
  | { kind: 'biweekly'; weekday: number; phase: 0 | 1 }
  | { kind: 'semimonthly'; days: readonly MonthDay[] }
  | { kind: 'monthly'; days: readonly MonthDay[] };

/** The local day number holding `utcMs` for a payer `offsetMs` east of UTC. */
export function localDayOf(utcMs: number, offsetMs: number): number {
  return Math.floor((utcMs + offsetMs) / DAY_MS);
}

/** 0 = Sunday … 6 = Saturday (day 0, 1970-01-01, was a Thursday). */
export function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

const isWeekend = (day: number) => weekdayOfDay(day) === 0 || weekdayOfDay(day) === 6;

/** The day a pay date lands on: a weekend pay date is paid on the Friday before (common US/EU practice). */
function businessDayOnOrBefore(day: number): number {
  let d = day;
  while (isWeekend(d)) d--;
  return d;
}

function dayOfMonth(year: number, month: number, which: MonthDay): number {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  if (which === 'last_business_day') return businessDayOnOrBefore(Date.UTC(year, month, last) / DAY_MS);
  return businessDayOnOrBefore(Date.UTC(year, month, Math.min(which, last)) / DAY_MS);
}

/** Every payday of the schedule in [fromDay, toDay], ascending. */
export function paydaysBetween(schedule: PaySchedule, fromDay: number, toDay: number): number[] {
  if (schedule.kind === 'weekly' || schedule.kind === 'biweekly') {
    const out: number[] = [];
    for (let d = fromDay; d <= toDay; d++) {
      if (weekdayOfDay(d) !== schedule.weekday) continue;
      if (schedule.kind === 'biweekly' && Math.floor(d / 7) % 2 !== schedule.phase) continue;
      out.push(d);
    }
    return out;
  }
  const days = new Set<number>();
  const first = new Date(fromDay * DAY_MS);
  // A month before the window too: a pay date on the 1st can move back into the month before.
  for (let m = -1; ; m++) {
    const year = first.getUTCFullYear();
    const month = first.getUTCMonth() + m;
    if (Date.UTC(year, month, 1) / DAY_MS > toDay) break;
    for (const which of schedule.days) days.add(dayOfMonth(year, month, which));
  }
  return [...days].filter((d) => d >= fromDay && d <= toDay).sort((a, b) => a - b);
}
