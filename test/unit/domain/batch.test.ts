// The batch file: its header and its entries, written as the spec's batch layout writes
// them (IsDeclined, SiteUrl, isDecline, ExpirationMonth, zipCode, a country name).
import { describe, it, expect } from 'vitest';
import { validateBatchEntry, validateBatchHeader, type BatchEntry } from '../../../src/domain/index.ts';
import { batchHeader, citRequest, layoutEntry, mitRequest } from './fixtures.ts';
import { errorsOf, expectOnlyErrors, expectValid, withField } from './helpers.ts';

const DEFAULT_EXPIRY = '2026-12-01T00:00:00.000Z';
const entry = (input: unknown, defaultExpiryDateUtc?: string) => validateBatchEntry(input, { mode: 'sandbox', defaultExpiryDateUtc });

describe('batch header', () => {
  it('validates the layout header; the token loses its Bearer prefix, the expiry becomes ISO', () => {
    expect(expectValid(validateBatchHeader(batchHeader()))).toEqual({
      mid: '6f1c2a7e-9b3d-4c5e-8f10-2a3b4c5d6e7f',
      authorizationToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZXJjaGFudCJ9.c2lnbmF0dXJl',
      expiryDateUtc: DEFAULT_EXPIRY,
    });
  });

  it('ignores requests (streamed separately) without a warning, in any key order', () => {
    const r = validateBatchHeader({ requests: [{}, {}], ...batchHeader() });
    expectValid(r);
    expect(r.warnings).toEqual([]);
  });

  it('accepts a bare token and a header without expiryDateUtc', () => {
    const value = expectValid(validateBatchHeader({ ...batchHeader(), authorizationToken: 'abc.def.ghi', expiryDateUtc: null }));
    expect(value.authorizationToken).toBe('abc.def.ghi');
    expect(value.expiryDateUtc).toBeUndefined();
  });

  it('accepts capitalised keys', () => {
    const { mid, authorizationToken } = batchHeader();
    expectValid(validateBatchHeader({ Mid: mid, AuthorizationToken: authorizationToken }));
  });

  it.each([
    ['mid', undefined, 'ERR_MODEL_REQUIRED'],
    ['mid', 'merchant-1', 'ERR_MODEL_FORMAT'],
    ['authorizationToken', undefined, 'ERR_MODEL_REQUIRED'],
    ['authorizationToken', 'Bearer ', 'ERR_MODEL_FORMAT'],
    ['authorizationToken', 42, 'ERR_MODEL_TYPE'],
    ['expiryDateUtc', 'soon', 'ERR_MODEL_FORMAT'],
  ])('%s = %j → %s', (field, value, code) => {
    expectOnlyErrors(validateBatchHeader(withField(batchHeader(), field, value)), [{ field, code }]);
  });
});

describe('batch entries', () => {
  it('validate in the layout spelling, with the header expiry as default', () => {
    const value: BatchEntry = expectValid(entry(layoutEntry(), DEFAULT_EXPIRY));
    expect(value.isDeclined).toBe(true);
    expect(value.siteUrl).toBe('https://shop.example.com');
    expect(value.paymentMethod.expirationMonth).toBe(12);
    expect(value.paymentMethod.expirationYear).toBe(2029);
    expect(value.paymentMethod.cardCountry).toBe('US');
    expect(value.billingInformation.zipcode).toBe('10001');
    expect(value.expiryDateUtc).toBe(DEFAULT_EXPIRY);
    expect(value.sequenceNumber).toBe(1);
  });

  it('validate with isDecline, as in the layout second entry', () => {
    const { IsDeclined, ...rest } = layoutEntry();
    expect(expectValid(entry({ ...rest, isDecline: IsDeclined, sequenceNumber: 2 }, DEFAULT_EXPIRY)).isDeclined).toBe(true);
  });

  it('an MIT entry without its own expiry and no header default fails on expiryDateUtc', () => {
    expectOnlyErrors(entry(layoutEntry()), [{ field: 'expiryDateUtc', code: 'ERR_MODEL_REQUIRED' }]);
  });

  it("an entry's own expiry overrides the header's", () => {
    const own = withField(layoutEntry(), 'expiryDateUtc', '2026-12-05T12:00:00Z');
    expect(expectValid(entry(own, DEFAULT_EXPIRY)).expiryDateUtc).toBe('2026-12-05T12:00:00.000Z');
  });

  it('require sequenceNumber, as a number or digits in a string, from 1', () => {
    expectOnlyErrors(entry(withField(mitRequest(), 'sequenceNumber', undefined)), [{ field: 'sequenceNumber', code: 'ERR_MODEL_REQUIRED' }]);
    expect(expectValid(entry({ ...mitRequest(), sequenceNumber: '7' })).sequenceNumber).toBe(7);
    expect(expectValid(entry({ ...mitRequest(), sequenceNumber: 7 })).sequenceNumber).toBe(7);
    expectOnlyErrors(entry({ ...mitRequest(), sequenceNumber: 0 }), [{ field: 'sequenceNumber', code: 'ERR_MODEL_RANGE' }]);
    expectOnlyErrors(entry({ ...mitRequest(), sequenceNumber: '-1' }), [{ field: 'sequenceNumber', code: 'ERR_MODEL_RANGE' }]);
    expectOnlyErrors(entry({ ...mitRequest(), sequenceNumber: '1.5' }), [{ field: 'sequenceNumber', code: 'ERR_MODEL_TYPE' }]);
  });

  it('carry senseKey through', () => {
    expect(expectValid(entry({ ...mitRequest(), sequenceNumber: 1 })).senseKey).toBe('sk_5d41402abc4b2a76b9719d911017c592');
  });

  it('apply the sandbox amount bound', () => {
    const low = withField({ ...mitRequest(), sequenceNumber: 1 }, 'transaction.amount', 10);
    expect(errorsOf(entry(low))).toEqual([{ field: 'transaction.amount', code: 'ERR_MODEL_RANGE' }]);
  });

  it('report every problem of an entry with its path', () => {
    let bad = withField(layoutEntry(), 'paymentMethod.ExpirationMonth', 13);
    bad = withField(bad, 'billingInformation.zipCode', '123');
    bad = withField(bad, 'subscription.price', 'free');
    expectOnlyErrors(entry(bad, DEFAULT_EXPIRY), [
      { field: 'paymentMethod.expirationMonth', code: 'ERR_MODEL_RANGE' },
      { field: 'billingInformation.zipcode', code: 'ERR_MODEL_FORMAT' },
      { field: 'subscription.price', code: 'ERR_MODEL_TYPE' },
    ]);
  });

  it('a CIT-shaped entry is validated the same way (the engine decides what to do with it)', () => {
    expectValid(entry({ ...citRequest(), sequenceNumber: 3 }));
  });
});
