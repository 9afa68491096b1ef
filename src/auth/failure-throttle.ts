// Failed authentications at the two endpoints that take a secret (`/oauth2/token`,
// `/v1/tokenize`) are limited per presented id (client id, or mid) and per source address,
// in a sliding window, so guessing a secret costs a window per few tries instead of nothing.
// Only failures count: a client that authenticates is never slowed. The per-id limit is the
// higher one, because anyone may present another client's id: it bounds a distributed guess
// at one client while an attacker on one address meets the lower per-address limit first.
// Counts live in memory per instance (N replicas allow N × the limit; documented).
import { RescuedError } from '../errors.ts';
import { authThrottled } from '../metrics.ts';
import { createFailureWindow, type FailureWindow } from '../failure-window.ts';

export interface FailureThrottleSettings {
  failuresPerClient: number;
  failuresPerAddress: number;
  failureWindowSeconds: number;
}

export interface FailureThrottle {
  /** Throws ERR_AUTH_TOO_MANY_FAILURES (429, with retryAfterSeconds) while id or address is over its limit. */
  check(endpoint: 'token' | 'tokenize', id: string, address: string): void;
  /** Records one failed authentication of `id` from `address`. */
  fail(id: string, address: string): void;
}

/** Keys remembered at most; beyond it the oldest are forgotten (an attacker rotating ids cannot grow memory). */
const MAX_KEYS = 100_000;

export class ThrottledError extends RescuedError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('ERR_AUTH_TOO_MANY_FAILURES', `Too many failed authentications; retry in ${retryAfterSeconds} s.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function createFailureThrottle(s: FailureThrottleSettings, now: () => number = Date.now): FailureThrottle {
  const windowMs = s.failureWindowSeconds * 1000;
  const ids = createFailureWindow({ windowMs, keep: s.failuresPerClient, maxKeys: MAX_KEYS, now });
  const addresses = createFailureWindow({ windowMs, keep: s.failuresPerAddress, maxKeys: MAX_KEYS, now });
  /** Seconds until the key is under its limit again; 0 when it is now. */
  const wait = (w: FailureWindow, key: string, limit: number): number => {
    const times = w.recent(key);
    return times.length >= limit ? Math.max(1, Math.ceil((times[0]! + windowMs - now()) / 1000)) : 0;
  };
  return {
    check(endpoint, id, address) {
      const seconds = Math.max(wait(ids, id, s.failuresPerClient), wait(addresses, address, s.failuresPerAddress));
      if (seconds === 0) return;
      authThrottled.inc({ endpoint });
      throw new ThrottledError(seconds);
    },
    fail(id, address) {
      ids.record(id);
      addresses.record(address);
    },
  };
}
