// Calendar arithmetic in the payer's local time, on plain epoch milliseconds: the planner runs
// for every order on every re-plan, so it avoids allocating Dates in its loops. Paydays too:
// the engine aims at them and the sandbox's payday test card approves on them, so this sits on
// the base floor (.config/layers.mjs), below both.

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * `timezoneUtcOffset` in milliseconds, local = UTC + offset (east positive, as in ISO 8601:
 * New York in winter is -5). The spec says only "integer, UTC offset of the timezone", and
 * clients send hours or minutes: a value with |x| ≤ 14 is hours (fractions allowed: 9.5, 5.75),
 * a larger one minutes (-300, 570). Anything outside ±14 h or not a number is read as UTC,
 * the least surprising guess for a payer whose clock we do not know.
 */
export function utcOffsetMs(timezoneUtcOffset: number | null | undefined): number {
  const x = Number(timezoneUtcOffset);
  if (!Number.isFinite(x)) return 0;
  const minutes = Math.abs(x) <= 14 ? x * 60 : x;
  if (Math.abs(minutes) > 14 * 60) return 0;
  return Math.round(minutes) * MINUTE_MS;
}

/** Midnight (local) of the local day holding `utcMs`, expressed as local-epoch ms. */
export function localDayStart(utcMs: number, offsetMs: number): number {
  const local = utcMs + offsetMs;
  return local - mod(local, DAY_MS);
}

export function localHour(utcMs: number, offsetMs: number): number {
  return Math.floor(mod(utcMs + offsetMs, DAY_MS) / HOUR_MS);
}

/** 0 = Sunday … 6 = Saturday, for a local-epoch day start. 1970-01-01 was a Thursday. */
export function weekdayOf(localDayMs: number): number {
  return mod(Math.floor(localDayMs / DAY_MS) + 4, 7);
}

export interface CalendarDay {
  year: number;
  /** 0-based, as Date's. */
  month: number;
  day: number;
}

/** Year, month and day of a local-epoch day start, without allocating a Date. */
export function calendarOf(localDayMs: number): CalendarDay {
  // Days-to-civil conversion (H. Hinnant, "chrono-compatible low-level date algorithms").
  const z = Math.floor(localDayMs / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  return { year: yoe + era * 400 + (month < 2 ? 1 : 0), month, day };
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 1 && leap ? 29 : (MONTH_DAYS[month] as number);
}

/** The last Monday–Friday of a month (no bank-holiday calendar: we have none per country). */
export function lastBusinessDay(year: number, month: number): number {
  const last = daysInMonth(year, month);
  const wd = weekdayOf(Date.UTC(year, month, last));
  return last - (wd === 6 ? 1 : wd === 0 ? 2 : 0);
}

export function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** FNV-1a, 32 bits: a stable spread from an order id with no randomness in the planner. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A payday calendar: the engine's (its rules' `timing`) or the sandbox payday card's. */
export interface Paydays {
  readonly paydayDaysOfMonth: readonly number[];
  readonly paydayLastBusinessDay: boolean;
  /** A pay date on a weekend is paid the Friday before. */
  readonly paydayWeekendToFriday: boolean;
  /** 0 = Sunday … 6 = Saturday. */
  readonly paydayWeekdays: readonly number[];
}

export function isPayday(localDayMs: number, paydays: Paydays): boolean {
  const weekday = weekdayOf(localDayMs);
  if (paydays.paydayWeekdays.includes(weekday)) return true;
  const weekend = weekday === 0 || weekday === 6;
  if (weekend && paydays.paydayWeekendToFriday) return false;
  if (isDatePayday(localDayMs, paydays)) return true;
  // A pay date on a weekend is paid the Friday before.
  if (weekday !== 5 || !paydays.paydayWeekendToFriday) return false;
  return isDatePayday(localDayMs + DAY_MS, paydays) || isDatePayday(localDayMs + 2 * DAY_MS, paydays);
}

function isDatePayday(localDayMs: number, paydays: Paydays): boolean {
  const { year, month, day } = calendarOf(localDayMs);
  if (paydays.paydayDaysOfMonth.includes(day)) return true;
  return paydays.paydayLastBusinessDay && day >= 26 && day === lastBusinessDay(year, month);
}
