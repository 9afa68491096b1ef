// Per-address failure throttling and per-merchant session counting. Both are in memory and
// per instance: they protect this process, not a global quota (DESIGN.md §4 keeps records
// in PostgreSQL; these are guards, not records).

import { createFailureWindow } from '../failure-window.ts';

const WINDOW_MS = 60_000;
/** Bounds the throttle's memory under a flood of distinct addresses. */
const MAX_TRACKED_ADDRESSES = 10_000;

export interface AuthThrottle {
  /** Records a refused login or connection from this address. */
  fail(address: string): void;
  /** True when the address has reached its failures for the last minute. */
  blocked(address: string): boolean;
}

export function createAuthThrottle(failuresPerMinute: number, now: () => number = Date.now): AuthThrottle {
  const window = createFailureWindow({ windowMs: WINDOW_MS, keep: failuresPerMinute, maxKeys: MAX_TRACKED_ADDRESSES, now });
  return {
    fail: (address) => window.record(address),
    blocked: (address) => window.recent(address).length >= failuresPerMinute,
  };
}

export interface Counter {
  /** A release function, or null when the key is at its maximum. */
  tryAcquire(key: string): (() => void) | null;
  count(key: string): number;
}

export function createCounter(max: number): Counter {
  const counts = new Map<string, number>();
  return {
    count: (key) => counts.get(key) ?? 0,
    tryAcquire(key) {
      const n = counts.get(key) ?? 0;
      if (n >= max) return null;
      counts.set(key, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      };
    },
  };
}
