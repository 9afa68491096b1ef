// `--keep-old-for` of `merchant rotate-tokenization-key`: the duration spelling shared with
// `webhooks replay --since`, capped at 30 days so that a rotation still ends a leaked key.
import { describe, expect, it } from 'vitest';
import { parseDurationMs } from '../../../src/duration.ts';
import { keyGraceMs, MAX_TOKENIZATION_KEY_GRACE_MS } from '../../../src/merchants/service.ts';

describe('tokenization key grace', () => {
  it('reads a whole number and a unit', () => {
    expect(parseDurationMs('90s')).toBe(90_000);
    expect(parseDurationMs(' 90m ')).toBe(5_400_000);
    expect(parseDurationMs('24h')).toBe(86_400_000);
    expect(parseDurationMs('7d')).toBe(604_800_000);
    for (const bad of ['', 'soon', '1.5h', '-1h', '1w', '2026-11-01', '1234567890s']) expect(parseDurationMs(bad)).toBeUndefined();
  });

  it('no option is no grace; 30d is the most; anything else is refused naming the option', () => {
    expect(keyGraceMs(undefined)).toBe(0);
    expect(keyGraceMs('0s')).toBe(0);
    expect(keyGraceMs('30d')).toBe(MAX_TOKENIZATION_KEY_GRACE_MS);
    for (const bad of ['31d', '721h', 'tomorrow']) {
      expect(() => keyGraceMs(bad)).toThrow(expect.objectContaining({ code: 'ERR_MERCHANT_INVALID_INPUT', message: expect.stringContaining('--keep-old-for') }));
    }
  });
});
