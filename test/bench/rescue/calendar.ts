// Time helpers of the simulated world, in the payers' local days. Written here with Date.UTC on
// purpose rather than with the engine's time helpers: the simulated world must not share code
// with the planner it judges. Days are whole days since 1970-01-01 in the payer's local time.

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** The local day number holding `utcMs` for a payer `offsetMs` east of UTC. */
export function localDayOf(utcMs: number, offsetMs: number): number {
  return Math.floor((utcMs + offsetMs) / DAY_MS);
}

/** 0 = Sunday … 6 = Saturday (day 0, 1970-01-01, was a Thursday). */
export function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}
