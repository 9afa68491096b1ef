// The authentication throttle in memory: what an address counts as, that a flood of distinct
// addresses and ids cannot grow memory past the cap, and that memory is given back once the
// failures leave the window.
import { describe, expect, it } from 'vitest';
import { createFailureThrottle, MAX_KEYS, ThrottledError } from '../../../src/auth/failure-throttle.ts';
import { sourceKey } from '../../../src/auth/source-address.ts';

const ip4 = (n: number) => `${10 + (n >>> 24)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

describe('source address keys', () => {
  it('IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64, anything else hashed', () => {
    expect(sourceKey('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(sourceKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:DB8:1::')).toBe('2001:db8:1:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    const junk = sourceKey(`x|${'y'.repeat(10_000)}`);
    expect(junk).toMatch(/^\?[A-Za-z0-9_-]{43}$/);
  });
});

describe('failure throttle memory', () => {
  it('stays within the cap under a flood of distinct addresses and ids, and frees it after the window', () => {
    let now = 1_000_000;
    const throttle = createFailureThrottle({ failuresPerClient: 3, failuresPerAddress: 10, failureWindowSeconds: 60, maxKeys: 1_000 }, () => now);
    for (let i = 0; i < 50_000; i++) {
      throttle.fail(`rc_${i}`.padEnd(i % 100 === 1 ? 60_000 : 10, 'x'), ip4(i)); // some ids huge: hashed, not kept whole
      now += 1;
    }
    expect(throttle.tracked()).toEqual({ pairs: 1_000, addresses: 1_000 });
    // The window passes: the next failure sweeps every key whose failures have all expired.
    now += 60_001;
    throttle.fail('rc_late', '198.51.100.1');
    expect(throttle.tracked()).toEqual({ pairs: 1, addresses: 1 });
  });

  it('the default cap holds against more addresses than it', () => {
    const throttle = createFailureThrottle({ failuresPerClient: 3, failuresPerAddress: 10, failureWindowSeconds: 60 });
    for (let i = 0; i < MAX_KEYS + 20_000; i++) throttle.fail('rc_target', ip4(i));
    expect(throttle.tracked()).toEqual({ pairs: MAX_KEYS, addresses: MAX_KEYS });
  });

  it('holds off only the failing pair and address, with the seconds until the oldest failure leaves the window', () => {
    let now = 0;
    const throttle = createFailureThrottle({ failuresPerClient: 2, failuresPerAddress: 5, failureWindowSeconds: 60 }, () => now);
    throttle.fail('rc_a', '203.0.113.1');
    now += 10_000;
    throttle.fail('rc_a', '203.0.113.1');
    expect(() => throttle.check('token', 'rc_a', '203.0.113.1')).toThrow(expect.objectContaining({ code: 'ERR_AUTH_TOO_MANY_FAILURES', retryAfterSeconds: 50 }));
    expect(() => throttle.check('token', 'rc_a', '203.0.113.2')).not.toThrow();
    expect(() => throttle.check('token', 'rc_b', '203.0.113.1')).not.toThrow();
    now += 50_000;
    expect(() => throttle.check('token', 'rc_a', '203.0.113.1')).not.toThrow();
    expect(new ThrottledError(1).status).toBe(429);
  });
});
