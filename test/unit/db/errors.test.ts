// Which database failures intake tries again (transient) and which it sets aside at once.
import { describe, expect, it } from 'vitest';
import { failureKind, sqlState } from '../../../src/sqlstate.ts';

const withCode = (code: string, cause?: unknown) => Object.assign(new Error('x'), { code }, cause ? { cause } : {});

describe('database failure kinds', () => {
  it.each([
    ['08006', 'transient'], ['08001', 'transient'], ['57P01', 'transient'], ['57P03', 'transient'], ['53300', 'transient'],
    ['40001', 'transient'], ['40P01', 'transient'], ['55P03', 'transient'], ['58030', 'transient'],
    ['22P05', 'refused'], ['23505', 'refused'], ['42P01', 'refused'], ['P0001', 'refused'], ['XX000', 'refused'], ['57014', 'refused'],
  ])('SQLSTATE %s is %s', (code, kind) => {
    expect(failureKind(withCode(code))).toBe(kind);
    // drizzle wraps the driver's error
    expect(failureKind(new Error('Failed query', { cause: withCode(code) }))).toBe(kind);
  });

  it.each(['CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'ECONNRESET', 'EPIPE', 'EBUSY'])('a driver or socket code (%s) has no SQLSTATE and is transient', (code) => {
    expect(sqlState(withCode(code))).toBeUndefined();
    expect(failureKind(withCode(code))).toBe('transient');
  });

  it('an error without any code is transient (its tries are bounded by the caller)', () => {
    expect(failureKind(new TypeError('boom'))).toBe('transient');
    expect(failureKind(undefined)).toBe('transient');
  });
});
