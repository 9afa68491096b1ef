// Failed authentications at the two endpoints that take a secret (`/oauth2/token`,
// `/v1/tokenize`) are limited per (presented id, source address) and per source address, in
// a sliding window, so guessing a secret costs a window per few tries instead of nothing.
//
// Nothing is counted per id alone: anyone may present another client's id (the mid is even
// public), so a per-id count let failures from other addresses lock the real client out
// (security review item 6). Now only the address that failed is held off, and a correct
// secret from an address with no failures is never throttled. What bounds a guess spread over
// many addresses is the secret itself: 256 random bits (src/auth/secrets.ts).
//
// The per-pair limit is the lower one: a shared egress address (a platform calling for many
// merchants) whose one client has a stale secret loses that client's attempts, not the
// others'. An IPv6 address counts by its /64, the block one host or site is handed, or every
// address of a single attacker would be a fresh one. Counts live in memory per instance (N
// replicas allow N × the limits; documented), bounded as src/failure-window.ts says.
import { createHash } from 'node:crypto';
import { RescuedError } from '../errors.ts';
import { authThrottled } from '../metrics.ts';
import { createFailureWindow, type FailureWindow } from '../failure-window.ts';
import { sourceKey } from './source-address.ts';

export interface FailureThrottleSettings {
  /** Failures of one presented id (client id, or mid) from one source address per window. */
  failuresPerClient: number;
  /** Failures from one source address per window, whatever the ids. */
  failuresPerAddress: number;
  failureWindowSeconds: number;
  /** Keys each count remembers at most (default MAX_KEYS). */
  maxKeys?: number;
}

export interface FailureThrottle {
  /** Throws ERR_AUTH_TOO_MANY_FAILURES (429, with retryAfterSeconds) while (id, address) or address is over its limit. */
  check(endpoint: 'token' | 'tokenize', id: string, address: string): void;
  /** Records one failed authentication of `id` from `address`. */
  fail(id: string, address: string): void;
  /** Keys remembered now, per count (bounded by maxKeys each). */
  tracked(): { pairs: number; addresses: number };
}

/**
 * Keys remembered at most per count. A key is under 120 characters (long ids are hashed,
 * below) and keeps at most its limit of timestamps. Both counts full, every address at its
 * limit of 20 (the worst case): 41 MiB of heap, measured with 50,000 IPv4 and IPv6 sources.
 * An attacker needs more sources than this inside one window before eviction frees any.
 */
export const MAX_KEYS = 50_000;

export class ThrottledError extends RescuedError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('ERR_AUTH_TOO_MANY_FAILURES', `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The presented id as a key of bounded size: a 60 kB "client id" must not cost 60 kB a key. */
const idKey = (id: string): string => (id.length <= 64 ? id : `#${createHash('sha256').update(id).digest('base64url')}`);

export function createFailureThrottle(s: FailureThrottleSettings, now: () => number = Date.now): FailureThrottle {
  const windowMs = s.failureWindowSeconds * 1000;
  const maxKeys = s.maxKeys ?? MAX_KEYS;
  const pairs = createFailureWindow({ windowMs, keep: s.failuresPerClient, maxKeys, now });
  const addresses = createFailureWindow({ windowMs, keep: s.failuresPerAddress, maxKeys, now });
  // The address comes first and holds no '|': the pair key is unambiguous whatever the id.
  const pairKey = (id: string, source: string) => `${source}|${idKey(id)}`;
  /** Seconds until the key is under its limit again; 0 when it is now. */
  const wait = (w: FailureWindow, key: string, limit: number): number => {
    const times = w.recent(key);
    return times.length >= limit ? Math.max(1, Math.ceil((times[0]! + windowMs - now()) / 1000)) : 0;
  };
  return {
    check(endpoint, id, address) {
      const source = sourceKey(address);
      const seconds = Math.max(wait(pairs, pairKey(id, source), s.failuresPerClient), wait(addresses, source, s.failuresPerAddress));
      if (seconds === 0) return;
      authThrottled.inc({ endpoint });
      throw new ThrottledError(seconds);
    },
    fail(id, address) {
      const source = sourceKey(address);
      pairs.record(pairKey(id, source));
      addresses.record(source);
    },
    tracked: () => ({ pairs: pairs.size(), addresses: addresses.size() }),
  };
}
