// One broken account must not stall the others: its calls are limited per account, and after
// `breakerFailures` failures in a row (no answer about the card) it is left alone for
// `breakerCooldownMs`, then one probe call decides whether it is back.
import { describe, expect, it } from 'vitest';
import { createAccountLimiter } from '../../../src/processors/account-limits.ts';
import { GatewayError } from '../../../src/processors/connector.ts';
import { silentLog } from '../../helpers/db.ts';

const settings = { accountConcurrency: 2, accountRatePerSecond: 1000, breakerFailures: 3, breakerCooldownMs: 1000 };
const fail = () => Promise.reject(new GatewayError('unknown', 'HTTP 503', { status: 503 }));

describe('account limits', () => {
  it('runs at most accountConcurrency calls at once', async () => {
    const limiter = createAccountLimiter(settings, { label: 'a', type: 'stripe' }, silentLog);
    let now = 0;
    let peak = 0;
    const call = async () => {
      peak = Math.max(peak, ++now);
      await new Promise((r) => setTimeout(r, 5)); // the scenario: a call that lasts, so the eight overlap
      now--;
    };
    await Promise.all(Array.from({ length: 8 }, () => limiter.run(call)));
    expect(peak).toBe(2);
  });

  it('opens after breakerFailures failures in a row, refuses without calling, then one probe closes it', async () => {
    let t = 10_000;
    const limiter = createAccountLimiter(settings, { label: 'a', type: 'stripe' }, silentLog, () => t);
    for (let i = 0; i < 3; i++) await expect(limiter.run(fail)).rejects.toMatchObject({ kind: 'unknown' });
    expect(limiter.openUntil()).toBe(11_000);
    let called = 0;
    await expect(limiter.run(async () => ++called)).rejects.toMatchObject({ kind: 'not_sent', message: expect.stringContaining('circuit open') });
    expect(called).toBe(0);
    t = 11_000;
    expect(await limiter.run(async () => ++called)).toBe(1);
    expect(limiter.openUntil()).toBe(0);
  });

  it('a failed probe opens it again at once for twice as long (backoff); a card decline is an answer and resets both counts', async () => {
    let t = 0;
    const limiter = createAccountLimiter(settings, { label: 'a', type: 'stripe' }, silentLog, () => t);
    for (let i = 0; i < 3; i++) await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(1000);
    t = 1000;
    await expect(limiter.run(fail)).rejects.toBeInstanceOf(GatewayError);
    expect(limiter.openUntil()).toBe(3000);
    t = 3000;
    await expect(limiter.run(fail)).rejects.toBeInstanceOf(GatewayError);
    expect(limiter.openUntil()).toBe(7000);
    t = 7000;
    await limiter.run(async () => ({ approved: false }));
    await limiter.run(fail).catch(() => {});
    await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(0);
    await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(8000); // the pause starts from breakerCooldownMs again
  });

  it('an answer that the key is still in progress (HTTP 409) is the account answering: it never opens, and closes a probe', async () => {
    let t = 0;
    const limiter = createAccountLimiter(settings, { label: 'a', type: 'http' }, silentLog, () => t);
    const inProgress = () => Promise.reject(new GatewayError('unknown', 'still processing (HTTP 409)', { status: 409 }));
    for (let i = 0; i < 10; i++) await expect(limiter.run(inProgress)).rejects.toMatchObject({ status: 409 });
    expect(limiter.openUntil()).toBe(0);
    t = 20_000; // a new window: the answers above no longer outweigh the failures
    for (let i = 0; i < 3; i++) await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(21_000);
    t = 21_000;
    await expect(limiter.run(inProgress)).rejects.toMatchObject({ status: 409 });
    expect(limiter.openUntil()).toBe(0);
  });

  it('does not open on a burst of simultaneous failures among mostly answered calls', async () => {
    const t = 0;
    const limiter = createAccountLimiter(settings, { label: 'a', type: 'stripe' }, silentLog, () => t);
    for (let i = 0; i < 20; i++) await limiter.run(async () => 'ok');
    for (let i = 0; i < 5; i++) await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(0);
  });

  it('calls in flight when it opens, failing after, neither extend the pause nor double it; only the probe does', async () => {
    let t = 0;
    const limiter = createAccountLimiter({ ...settings, accountConcurrency: 10 }, { label: 'a', type: 'stripe' }, silentLog, () => t);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = Array.from({ length: 4 }, () => limiter.run(async () => {
      await held;
      throw new GatewayError('unknown', 'timeout');
    }).catch(() => {}));
    for (let i = 0; i < 3; i++) await limiter.run(fail).catch(() => {});
    expect(limiter.openUntil()).toBe(1000);
    release();
    await Promise.all(slow);
    expect(limiter.openUntil()).toBe(1000);
    // A probe answered closes it; a call in flight failing during the probe does not reopen it.
    t = 1000;
    let finishProbe!: () => void;
    const probe = limiter.run(() => new Promise<string>((r) => (finishProbe = () => r('ok'))));
    await expect(limiter.run(async () => 'x')).rejects.toMatchObject({ kind: 'not_sent', message: expect.stringContaining('being probed') });
    finishProbe();
    expect(await probe).toBe('ok');
    expect(limiter.openUntil()).toBe(0);
  });
});
