// The retry schedule of DESIGN.md §2 with its jitter, Retry-After, 410, and the dead letter.
import { describe, expect, it } from 'vitest';
import { decide, parseRetryAfter, retryDelayMs, RETRY_DELAYS_MS } from '../../../src/webhooks/schedule.ts';

const now = new Date('2026-11-22T06:00:00.000Z');
const mid = () => 0.5;

describe('retry schedule', () => {
  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then stops', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, RETRY_DELAYS_MS, mid))).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(retryDelayMs(8)).toBeUndefined();
  });

  it('spreads each delay by at most ±10 %', () => {
    expect(retryDelayMs(2, RETRY_DELAYS_MS, () => 0)).toBe(270_000);
    expect(retryDelayMs(2, RETRY_DELAYS_MS, () => 0.999999)).toBe(330_000);
  });

  it('only 2xx is delivered; 3xx, 4xx, 5xx and no answer are retried', () => {
    for (const code of [200, 201, 204, 299]) expect(decide({ statusCode: code }, 1, now)).toEqual({ kind: 'delivered' });
    for (const code of [undefined, 100, 301, 400, 404, 500, 502]) expect(decide({ statusCode: code }, 1, now, RETRY_DELAYS_MS, mid)).toEqual({ kind: 'retry', at: new Date(now.getTime() + 5_000) });
  });

  it('410 disables the endpoint', () => {
    expect(decide({ statusCode: 410 }, 3, now)).toEqual({ kind: 'disabled' });
  });

  it('the eighth failed attempt is dead', () => {
    expect(decide({ statusCode: 500 }, 8, now)).toEqual({ kind: 'dead' });
    expect(decide({ statusCode: 429, retryAfter: '1' }, 8, now)).toEqual({ kind: 'dead' });
  });

  it('429 and 503 honour Retry-After in seconds or as an HTTP date; other codes do not', () => {
    expect(decide({ statusCode: 429, retryAfter: '120' }, 1, now)).toEqual({ kind: 'retry', at: new Date(now.getTime() + 120_000) });
    expect(decide({ statusCode: 503, retryAfter: 'Sun, 22 Nov 2026 06:10:00 GMT' }, 2, now)).toEqual({ kind: 'retry', at: new Date('2026-11-22T06:10:00.000Z') });
    expect(decide({ statusCode: 500, retryAfter: '120' }, 1, now, RETRY_DELAYS_MS, mid)).toEqual({ kind: 'retry', at: new Date(now.getTime() + 5_000) });
    expect(decide({ statusCode: 429, retryAfter: 'soon' }, 1, now, RETRY_DELAYS_MS, mid)).toEqual({ kind: 'retry', at: new Date(now.getTime() + 5_000) });
  });

  it('Retry-After is capped at 10 hours and a past date means now', () => {
    expect(parseRetryAfter('99999999', now)).toBe(36_000_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 06:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
