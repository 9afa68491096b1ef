// Where an attempt falls in the learned-timing table: the payer's local weekday, hour and
// day-of-month bucket. Six buckets of about five days each, even and not placed around any
// pay date, so the table can find pay calendars the static model does not know.
import { DAY_MS, HOUR_MS, calendarOf, localDayStart, localHour, weekdayOf } from '../../calendar.ts';

export interface Cell {
  /** 0 = Sunday … 6 = Saturday, local. */
  weekday: number;
  /** 0–23, local. */
  localHour: number;
  /** 0–5: days 1–5, 6–10, 11–15, 16–20, 21–25, 26–31. */
  dayBucket: number;
}

export const DAY_BUCKETS = 6;
const BUCKET_FIRST_DAYS = [1, 6, 11, 16, 21, 26];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function dayBucketOf(dayOfMonth: number): number {
  return Math.min(DAY_BUCKETS - 1, Math.floor((dayOfMonth - 1) / 5));
}

export function cellOf(utcMs: number, offsetMs: number): Cell {
  const day = localDayStart(utcMs, offsetMs);
  return { weekday: weekdayOf(day), localHour: localHour(utcMs, offsetMs), dayBucket: dayBucketOf(calendarOf(day).day) };
}

const two = (n: number) => String(n).padStart(2, '0');

/** "Tue 09–10": the weekday and the hour, as the evidence of a plan shows them. */
export function weekdayHourLabel(weekday: number, hour: number): string {
  return `${WEEKDAYS[weekday] ?? '?'} ${two(hour)}–${two((hour + 1) % 24)}`;
}

export function dayBucketLabel(bucket: number): string {
  const first = BUCKET_FIRST_DAYS[bucket] ?? 1;
  const last = bucket >= DAY_BUCKETS - 1 ? 31 : first + 4;
  return `days ${first}–${last}`;
}

/** The start of the local hour holding `utcMs`, in UTC ms. */
export function hourStart(utcMs: number, offsetMs: number): number {
  return utcMs - ((((utcMs + offsetMs) % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

export { DAY_MS, HOUR_MS };
