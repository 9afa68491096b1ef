// Normalisation before validation (DESIGN.md §2 "Leniency", "Response casing"): the
// spellings, nulls, numeric strings, dates and country names real clients send.
import { describe, it, expect } from 'vitest';
import { validateBatchEntry, validateEvaluate } from '../../../src/domain/index.ts';
import { citRequest, layoutEntry, mitRequest } from './fixtures.ts';
import { expectOnlyErrors, expectValid, withField } from './helpers.ts';

const check = (input: unknown) => validateEvaluate(input, { mode: 'production' });

function rename(obj: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const { [from]: value, ...rest } = obj;
  return { ...rest, [to]: value };
}

describe('spelling variants', () => {
  it.each([
    ['IsDeclined', 'isDeclined'],
    ['isDecline', 'isDeclined'],
    ['IsDecline', 'isDeclined'],
    ['SiteUrl', 'siteUrl'],
    ['OrderId', 'orderId'],
    ['IdempotencyKey', 'idempotencyKey'],
    ['IsMIT', 'isMIT'],
    ['PaymentMethod', 'paymentMethod'],
  ])('top-level %s is read as %s', (variant, canonical) => {
    const value = expectValid(check(rename(citRequest(), canonical, variant))) as Record<string, unknown>;
    expect(value[canonical]).toEqual(citRequest()[canonical]);
    expect(value).not.toHaveProperty(variant);
  });

  it.each([
    ['paymentMethod', 'ExpirationMonth', 'expirationMonth'],
    ['paymentMethod', 'ExpirationYear', 'expirationYear'],
    ['paymentMethod', 'CardNumber', 'cardNumber'],
    ['billingInformation', 'zipCode', 'zipcode'],
    ['billingInformation', 'ZipCode', 'zipcode'],
    ['shippingInformation', 'zipCode', 'zipcode'],
    ['transaction', 'Amount', 'amount'],
    ['payer', 'Email', 'email'],
  ])('%s.%s is read as %s', (object, variant, canonical) => {
    const req = citRequest();
    req[object] = rename(req[object] as Record<string, unknown>, canonical, variant);
    const value = expectValid(check(req)) as unknown as Record<string, Record<string, unknown>>;
    expect(value[object]?.[canonical]).toEqual((citRequest()[object] as Record<string, unknown>)[canonical]);
  });

  it('reads capitalised keys inside arrays', () => {
    const req = withField(citRequest(), 'orderItems', [{ Sku: 'SKU-1', Quantity: '2' }]);
    expect(expectValid(check(req)).orderItems).toEqual([{ sku: 'SKU-1', quantity: 2 }]);
  });

  it('keeps the canonical spelling when both are sent, whatever their order, and warns', () => {
    const before = { isDecline: false, ...citRequest() };
    const after = { ...citRequest(), IsDeclined: false };
    for (const req of [before, after]) {
      const r = check(req);
      expect(expectValid(r).isDeclined).toBe(true);
      expect(r.warnings.map((w) => w.code)).toEqual(['WARN_MODEL_DUPLICATE_FIELD']);
    }
  });

  it('a variant fills in when the canonical spelling is null', () => {
    const req = { ...citRequest(), isDeclined: null, IsDeclined: true };
    expect(expectValid(check(req)).isDeclined).toBe(true);
  });
});

describe('null means absent', () => {
  it.each(['mid', 'siteUrl', 'senseKey', 'affiliate', 'merchant', 'orderItems', 'shippingInformation', 'payer.birthdate', 'billingInformation.addressLine2', 'paymentMethod.cardIssuer', 'paymentMethod.token'])('%s: null is dropped', (path) => {
    const value = expectValid(check(withField(citRequest(), path, null)));
    expect(JSON.stringify(value)).not.toContain('null');
  });

  it('null items of an array are type errors, not silently dropped', () => {
    expectOnlyErrors(check(withField(citRequest(), 'orderItems', [null])), [{ field: 'orderItems[0]', code: 'ERR_MODEL_TYPE' }]);
  });
});

describe('numeric strings', () => {
  it('subscription.price "100" becomes 100', () => {
    expect(expectValid(check(withField(mitRequest(), 'subscription.price', '100'))).subscription?.price).toBe(100);
  });

  it('orderItems[].quantity "3" becomes 3', () => {
    expect(expectValid(check(withField(citRequest(), 'orderItems[1].quantity', '3'))).orderItems?.[1]?.quantity).toBe(3);
  });

  it.each(['1.5', 'ten', '', '1e3'])('subscription.price %j stays a type error', (price) => {
    expectOnlyErrors(check(withField(mitRequest(), 'subscription.price', price)), [{ field: 'subscription.price', code: 'ERR_MODEL_TYPE' }]);
  });

  it('other integers stay strict: transaction.amount "4999" is a type error', () => {
    expectOnlyErrors(check(withField(citRequest(), 'transaction.amount', '4999')), [{ field: 'transaction.amount', code: 'ERR_MODEL_TYPE' }]);
  });
});

describe('dates', () => {
  it.each([
    ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T01:30:00+01:30', '2026-12-01T00:00:00.000Z'],
    ['2026-11-30T19:00:00-05:00', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01 00:00:00', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.1234567Z', '2026-12-01T00:00:00.123Z'],
    ['Tue, 01 Dec 2026 00:00:00 GMT', '2026-12-01T00:00:00.000Z'],
    ['Tue, 01 Dec 2026 05:00:00 +0500', '2026-12-01T00:00:00.000Z'],
  ])('expiryDateUtc %j → %s', (text, iso) => {
    expect(expectValid(check(withField(mitRequest(), 'expiryDateUtc', text))).expiryDateUtc).toBe(iso);
  });

  it('transaction.timestampUtc is normalised the same way', () => {
    expect(expectValid(check(withField(citRequest(), 'transaction.timestampUtc', 'Fri, 20 Nov 2026 14:05:09 GMT'))).transaction.timestampUtc).toBe('2026-11-20T14:05:09.000Z');
  });

  it.each(['1990-05-01T23:30:00-05:00', 'Tue, 01 May 1990 00:00:00 GMT'])('payer.birthdate %j → the date as written, 1990-05-01', (text) => {
    expect(expectValid(check(withField(citRequest(), 'payer.birthdate', text))).payer.birthdate).toBe('1990-05-01');
  });

  it.each(['2026-13-01T00:00:00Z', '2026-02-29T00:00:00Z', '2026-12-01T24:00:00Z', '01/12/2026', 'Tue, 32 Dec 2026 00:00:00 GMT', '1764547200', ''])('%j → ERR_MODEL_FORMAT', (text) => {
    expectOnlyErrors(check(withField(citRequest(), 'transaction.timestampUtc', text)), [{ field: 'transaction.timestampUtc', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('a date given as a number is a type error', () => {
    expectOnlyErrors(check(withField(citRequest(), 'transaction.timestampUtc', 1764547200000)), [{ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TYPE' }]);
  });
});

describe('codes', () => {
  it.each([
    ['United States', 'US'],
    ['united states of america', 'US'],
    ['USA', 'US'],
    ['United Kingdom', 'GB'],
    ['Germany', 'DE'],
    ['us', 'US'],
  ])('paymentMethod.cardCountry %j → %s', (name, code) => {
    const base = code === 'US' ? citRequest() : withField(citRequest(), 'billingInformation.state', undefined);
    expect(expectValid(check(withField(base, 'paymentMethod.cardCountry', name))).paymentMethod.cardCountry).toBe(code);
  });

  it('an unknown country name stays an error', () => {
    expectOnlyErrors(check(withField(citRequest(), 'paymentMethod.cardCountry', 'Narnia')), [{ field: 'paymentMethod.cardCountry', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('billingInformation.countryCode takes codes only (the spec maps names for cardCountry alone)', () => {
    expectOnlyErrors(check(withField(citRequest(), 'billingInformation.countryCode', 'United States')), [{ field: 'billingInformation.countryCode', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('upper-cases currency and country codes', () => {
    let req = withField(citRequest(), 'transaction.currency', 'usd');
    req = withField(req, 'billingInformation.countryCode', 'us');
    const value = expectValid(check(req));
    expect([value.transaction.currency, value.billingInformation.countryCode]).toEqual(['USD', 'US']);
  });
});

describe('unknown fields', () => {
  it('are dropped with a warning naming the field, at any depth', () => {
    let req = withField(citRequest(), 'customerIp', '203.0.113.9');
    req = withField(req, 'transaction.gatewayFee', 30);
    req = withField(req, 'orderItems[1].colour', 'red');
    const r = check(req);
    const value = expectValid(r);
    expect(value).toEqual(citRequest());
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([
      ['customerIp', 'WARN_MODEL_UNKNOWN_FIELD'],
      ['transaction.gatewayFee', 'WARN_MODEL_UNKNOWN_FIELD'],
      ['orderItems[1].colour', 'WARN_MODEL_UNKNOWN_FIELD'],
    ]);
  });

  it('are reported 20 at most', () => {
    const req: Record<string, unknown> = citRequest();
    for (let i = 0; i < 500; i++) req[`extra${i}`] = i;
    const r = check(req);
    expectValid(r);
    expect(r.warnings).toHaveLength(20);
  });

  it('do not let a __proto__ key through', () => {
    const req = JSON.parse(`{"__proto__": {"isAdmin": true}, ${JSON.stringify(citRequest()).slice(1)}`);
    const value = expectValid(check(req)) as Record<string, unknown>;
    expect(value.isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});

describe('the input', () => {
  it('is never changed', () => {
    const req = layoutEntry();
    const copy = structuredClone(req);
    expectValid(validateBatchEntry(req, { mode: 'production', defaultExpiryDateUtc: '2026-12-01T00:00:00.000Z' }));
    expect(req).toEqual(copy);
    const cit = withField(citRequest(), 'orderSource', undefined);
    const citCopy = structuredClone(cit);
    expectValid(check(cit));
    expect(cit).toEqual(citCopy);
  });
});

describe('a request shaped the way real clients send it', () => {
  it('validates: nulls for absent optional fields, "100" as the price, an RFC 1123 expiry, addressLine2 null', () => {
    const req = mitRequest();
    Object.assign(req, { mid: null, siteUrl: null, senseKey: null, affiliate: null, merchant: null, orderItems: null, additionalFields: null, shippingInformation: null });
    Object.assign(req, { expiryDateUtc: 'Tue, 01 Dec 2026 00:00:00 GMT' });
    Object.assign(req.subscription as object, { price: '100', paymentNumber: null, totalPayments: null });
    Object.assign(req.billingInformation as object, { addressLine2: null, phone: null });
    Object.assign(req.payer as object, { birthdate: null, id: null });
    Object.assign(req.transaction as object, { responseSubStatus: null, dynamicDescriptor: null });
    const value = expectValid(check(JSON.parse(JSON.stringify(req))));
    expect(value.subscription?.price).toBe(100);
    expect(value.expiryDateUtc).toBe('2026-12-01T00:00:00.000Z');
    expect(value.billingInformation.addressLine2).toBeUndefined();
    expect(JSON.stringify(value)).not.toContain('null');
  });
});
