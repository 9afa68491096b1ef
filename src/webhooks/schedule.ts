// When a failed delivery is tried again (DESIGN.md §2): after 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h and 10 h — eight attempts over about 28 hours — each delay spread by ±10 % so that
// the deliveries of a receiver that came back do not all return in the same second. 429 and
// 503 may name their own delay in Retry-After (seconds or an HTTP date), which replaces the
// schedule's step; it is capped so that a receiver cannot park a delivery for months.

export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const JITTER_RATIO = 0.1;
/** The longest Retry-After honoured: the schedule's longest step. */
export const MAX_RETRY_AFTER_MS = 36_000_000;

export type Outcome =
  | { kind: 'delivered' }
  | { kind: 'disabled' }
  | { kind: 'retry'; at: Date }
  | { kind: 'dead' };

/** The delay after failed attempt `attemptNo` (1-based), or undefined when it was the last. */
export function retryDelayMs(attemptNo: number, delays: readonly number[] = RETRY_DELAYS_MS, random: () => number = Math.random): number | undefined {
  const base = delays[attemptNo - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER_RATIO * (2 * random() - 1)));
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

export interface AttemptResult {
  /** HTTP status, or undefined when no answer came (timeout, connection refused …). */
  statusCode?: number | undefined;
  retryAfter?: string | undefined;
}

/** What follows attempt `attemptNo` of a delivery. */
export function decide(result: AttemptResult, attemptNo: number, now: Date, delays: readonly number[] = RETRY_DELAYS_MS, random: () => number = Math.random): Outcome {
  const code = result.statusCode;
  if (code !== undefined && code >= 200 && code < 300) return { kind: 'delivered' };
  if (code === 410) return { kind: 'disabled' };
  const scheduled = retryDelayMs(attemptNo, delays, random);
  if (scheduled === undefined) return { kind: 'dead' };
  const asked = code === 429 || code === 503 ? parseRetryAfter(result.retryAfter, now) : undefined;
  return { kind: 'retry', at: new Date(now.getTime() + (asked ?? scheduled)) };
}
