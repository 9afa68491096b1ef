// Dates arrive as ISO 8601 or as RFC 1123 (the HTTP date form, "Tue, 01 Dec 2026 00:00:00
// GMT", which .NET clients emit with the "R" format). Date.parse is not used: it accepts
// far more than either standard and differs between engines. A date-time without an offset
// is read as UTC, because every such field is named ...Utc.
//
// The canonical forms are `YYYY-MM-DDTHH:MM:SS.sssZ` (what Date#toISOString writes) and
// `YYYY-MM-DD`. Checking and producing them avoids Date objects on the common path: a
// batch of 100,000 entries carries 200,000 dates, and Date construction dominated the
// model's profile.
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const RFC1123 =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ?)?(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2})(?::(\d{2}))? (GMT|UTC|UT|Z|[+-]\d{4})$/i;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
  offsetMinutes: number;
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

// Years before 1000 are refused: they are sentinels (0001-01-01) rather than dates, and
// Date.UTC maps years 0–99 onto 1900–1999.
function validDate(year: number, month: number, day: number): boolean {
  return year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function plausible(p: Parts): boolean {
  return validDate(p.year, p.month, p.day) && p.hour <= 23 && p.minute <= 59 && p.second <= 59 && Math.abs(p.offsetMinutes) < 24 * 60;
}

/** Two ASCII digits of `s` at `at` as a number, or -1 if either is not a digit. */
function twoDigits(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48;
  const b = s.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function dateAt(s: string): boolean {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const hi = twoDigits(s, 0);
  const lo = twoDigits(s, 2);
  return hi >= 0 && lo >= 0 && validDate(hi * 100 + lo, twoDigits(s, 5), twoDigits(s, 8));
}

/** Whether `s` is a valid date in the canonical form YYYY-MM-DD. */
export function isCanonicalDate(s: string): boolean {
  return s.length === 10 && dateAt(s);
}

/** Whether `s` is a valid instant in the canonical form YYYY-MM-DDTHH:MM:SS.sssZ. */
export function isCanonicalDateTime(s: string): boolean {
  if (s.length !== 24 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
  if (s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90 || !dateAt(s)) return false;
  const hour = twoDigits(s, 11);
  const minute = twoDigits(s, 14);
  const second = twoDigits(s, 17);
  const milli = s.charCodeAt(22) - 48;
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 &&
    twoDigits(s, 20) >= 0 && milli >= 0 && milli <= 9;
}

function offsetOf(zone: string | undefined): number {
  if (zone === undefined || /^(z|gmt|utc|ut)$/i.test(zone)) return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const hhmm = zone.slice(1).replace(':', '');
  return sign * (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2, 4) || '0'));
}

function fromIso(m: RegExpExecArray): Parts {
  return {
    year: Number(m[1]), month: Number(m[2]), day: Number(m[3]),
    hour: Number(m[4] ?? 0), minute: Number(m[5] ?? 0), second: Number(m[6] ?? 0),
    millis: m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0')),
    offsetMinutes: offsetOf(m[8]),
  };
}

function fromRfc1123(m: RegExpExecArray): Parts {
  return {
    year: Number(m[3]), month: MONTHS.indexOf((m[2] ?? '').toLowerCase()) + 1, day: Number(m[1]),
    hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6] ?? 0), millis: 0,
    offsetMinutes: offsetOf(m[7]),
  };
}

// The weekday of an RFC 1123 date is redundant and not checked: a wrong weekday says
// nothing about which instant the client meant.
function parts(text: string): Parts | undefined {
  const iso = ISO.exec(text);
  const rfc = iso ? null : RFC1123.exec(text);
  const p = iso ? fromIso(iso) : rfc ? fromRfc1123(rfc) : undefined;
  return p && plausible(p) ? p : undefined;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function formatDate(p: Parts): string {
  return `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}`;
}

/** An ISO 8601 or RFC 1123 date-time as a UTC ISO string (…T…Z), or undefined. */
export function toUtcDateTime(text: string): string | undefined {
  if (isCanonicalDateTime(text)) return text;
  const p = parts(text.trim());
  if (!p) return undefined;
  if (p.offsetMinutes === 0) return `${formatDate(p)}T${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}.${pad(p.millis, 3)}Z`;
  const ms = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millis) - p.offsetMinutes * 60_000;
  return new Date(ms).toISOString();
}

/**
 * The calendar date (YYYY-MM-DD) of an ISO 8601 or RFC 1123 date or date-time, as written:
 * a birthdate is a day in the payer's calendar, so no time-zone shift is applied.
 */
export function toCalendarDate(text: string): string | undefined {
  if (isCanonicalDate(text)) return text;
  const p = parts(text.trim());
  return p && formatDate(p);
}
