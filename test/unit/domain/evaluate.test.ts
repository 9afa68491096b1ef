// The evaluate request: the spec's examples validate; every required field, type and
// format rule fails on the exact field with the exact code.
import { describe, it, expect } from 'vitest';
import { validateEvaluate, type EvaluateRequest } from '../../../src/domain/index.ts';
import { citRequest, mitRequest } from './fixtures.ts';
import { errorsOf, expectError, expectOnlyErrors, expectValid, withField } from './helpers.ts';

const prod = { mode: 'production' } as const;
const check = (input: unknown) => validateEvaluate(input, prod);

describe('valid requests', () => {
  it('accepts a full CIT request and returns it unchanged', () => {
    const value = expectValid(check(citRequest()));
    expect(value).toEqual(citRequest());
  });

  it('accepts a full recurring MIT request', () => {
    const value: EvaluateRequest = expectValid(check(mitRequest()));
    expect(value.subscription?.price).toBe(1999);
    expect(value.threeDSecure?.ecommerceIndicator).toBe('05');
  });

  it('defaults orderSource to ecommerce when absent, null or empty', () => {
    for (const source of [undefined, null, '']) {
      const r = check(withField(citRequest(), 'orderSource', source));
      expect(expectValid(r).orderSource).toBe('ecommerce');
      expect(r.warnings).toEqual([]);
    }
  });

  it('accepts a request without any optional field', () => {
    const minimal = structuredClone(citRequest());
    for (const key of ['mid', 'siteUrl', 'orderSource', 'senseKey', 'shippingInformation', 'merchant', 'affiliate', 'orderItems', 'additionalFields']) delete minimal[key];
    expectValid(check(minimal));
  });
});

const REQUIRED = [
  'isDeclined', 'orderId', 'siteId', 'idempotencyKey', 'isMIT', 'transaction', 'payer', 'billingInformation', 'paymentMethod',
  'transaction.id', 'transaction.timestampUtc', 'transaction.timezoneUtcOffset', 'transaction.amount', 'transaction.currency',
  'transaction.responseCode', 'transaction.responseCodeSource', 'transaction.avsResultCode', 'transaction.cvvResultCode',
  'transaction.cavvResultCode', 'transaction.cardNotPresent',
  'payer.email',
  'billingInformation.firstName', 'billingInformation.lastName', 'billingInformation.country', 'billingInformation.countryCode',
  'billingInformation.addressLine1', 'billingInformation.city', 'billingInformation.zipcode',
  'paymentMethod.holderName', 'paymentMethod.cardType', 'paymentMethod.cardBrand', 'paymentMethod.cardCountry',
  'paymentMethod.expirationMonth', 'paymentMethod.expirationYear', 'paymentMethod.cardBinNumber',
  'paymentMethod.cardLast4Digits', 'paymentMethod.cardNumber',
  'merchant.id', 'merchant.mcc', 'merchant.country',
  'shippingInformation.firstName', 'shippingInformation.lastName', 'shippingInformation.country',
  'shippingInformation.countryCode', 'shippingInformation.addressLine1', 'shippingInformation.city', 'shippingInformation.zipcode',
];

describe('required fields', () => {
  it.each(REQUIRED)('%s missing → ERR_MODEL_REQUIRED on that field alone', (path) => {
    expectOnlyErrors(check(withField(citRequest(), path, undefined)), [{ field: path, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it.each(['orderId', 'transaction.responseCode', 'billingInformation.city', 'paymentMethod.cardNumber'])('%s null → ERR_MODEL_REQUIRED', (path) => {
    expectOnlyErrors(check(withField(citRequest(), path, null)), [{ field: path, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it.each(['orderId', 'transaction.id', 'billingInformation.firstName', 'paymentMethod.holderName'])('%s empty → ERR_MODEL_REQUIRED', (path) => {
    const r = check(withField(citRequest(), path, ''));
    expectError(r, path, 'ERR_MODEL_REQUIRED');
  });

  it('an empty payer.email is a format error: the spec asks for NA instead', () => {
    expectOnlyErrors(check(withField(citRequest(), 'payer.email', '')), [{ field: 'payer.email', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('reports every problem of a request at once, one per field', () => {
    let req = withField(citRequest(), 'orderId', undefined);
    req = withField(req, 'transaction.amount', 0);
    req = withField(req, 'paymentMethod.cardBinNumber', '4111');
    req = withField(req, 'orderItems[1].quantity', 'two');
    expectOnlyErrors(check(req), [
      { field: 'orderId', code: 'ERR_MODEL_REQUIRED' },
      { field: 'transaction.amount', code: 'ERR_MODEL_RANGE' },
      { field: 'paymentMethod.cardBinNumber', code: 'ERR_MODEL_FORMAT' },
      { field: 'orderItems[1].quantity', code: 'ERR_MODEL_TYPE' },
    ]);
  });

  it('rejects a body that is not an object', () => {
    for (const body of [null, [], 'text', 42]) {
      expect(errorsOf(check(body))).toEqual([{ field: '$', code: 'ERR_MODEL_TYPE' }]);
    }
  });
});

describe('types', () => {
  it.each([
    ['isDeclined', 'true'],
    ['isMIT', 1],
    ['transaction', 'tx'],
    ['transaction.amount', '4999'],
    ['transaction.amount', 49.99],
    ['transaction.timezoneUtcOffset', -5.5],
    ['transaction.cardNotPresent', 'yes'],
    ['paymentMethod.expirationMonth', '12'],
    ['paymentMethod.token', 'true'],
    ['merchant.mcc', '5968'],
    ['orderItems', { sku: 'x' }],
    ['orderItems[0]', 'SKU-1'],
    ['orderItems[0].amount', '3999'],
    ['additionalFields[0].value', 7],
    ['siteUrl', 7],
  ])('%s = %j → ERR_MODEL_TYPE', (path, value) => {
    expectOnlyErrors(check(withField(citRequest(), path, value)), [{ field: path, code: 'ERR_MODEL_TYPE' }]);
  });
});

describe('amount', () => {
  it.each([1, 11, 19999])('accepts %i cents', (amount) => {
    expectValid(check(withField(citRequest(), 'transaction.amount', amount)));
  });

  it.each([0, -100, 20000, 25000])('rejects %i cents with ERR_MODEL_RANGE', (amount) => {
    expectOnlyErrors(check(withField(citRequest(), 'transaction.amount', amount)), [{ field: 'transaction.amount', code: 'ERR_MODEL_RANGE' }]);
  });

  it('says what the bounds are', () => {
    const r = check(withField(citRequest(), 'transaction.amount', 20000));
    expect(r.ok ? '' : r.errors[0]?.message).toBe('transaction.amount must be greater than 0 and less than 20000 (cents).');
  });

  it.each([5, 10])('sandbox mode rejects %i cents (spec: greater than 10 in test calls)', (amount) => {
    const r = validateEvaluate(withField(citRequest(), 'transaction.amount', amount), { mode: 'sandbox' });
    expectOnlyErrors(r, [{ field: 'transaction.amount', code: 'ERR_MODEL_RANGE' }]);
    expectValid(validateEvaluate(withField(citRequest(), 'transaction.amount', amount), prod));
  });

  it('sandbox mode accepts 11 cents', () => {
    expectValid(validateEvaluate(withField(citRequest(), 'transaction.amount', 11), { mode: 'sandbox' }));
  });
});

describe('payment method', () => {
  it.each(['12', '1234567', '41111a', ''])('cardBinNumber %j → ERR_MODEL_FORMAT', (bin) => {
    expectOnlyErrors(check(withField(citRequest(), 'paymentMethod.cardBinNumber', bin)), [{ field: 'paymentMethod.cardBinNumber', code: 'ERR_MODEL_FORMAT' }]);
  });

  it.each(['111', '11111', 'abcd'])('cardLast4Digits %j → ERR_MODEL_FORMAT', (last4) => {
    expectOnlyErrors(check(withField(citRequest(), 'paymentMethod.cardLast4Digits', last4)), [{ field: 'paymentMethod.cardLast4Digits', code: 'ERR_MODEL_FORMAT' }]);
  });

  it.each([1, 12])('expirationMonth %i is accepted', (month) => {
    expectValid(check(withField(citRequest(), 'paymentMethod.expirationMonth', month)));
  });

  it.each([0, 13])('expirationMonth %i → ERR_MODEL_RANGE', (month) => {
    expectOnlyErrors(check(withField(citRequest(), 'paymentMethod.expirationMonth', month)), [{ field: 'paymentMethod.expirationMonth', code: 'ERR_MODEL_RANGE' }]);
  });

  it.each([29, 999, 20290])('expirationYear %i (not 4 digits) → ERR_MODEL_RANGE', (year) => {
    expectOnlyErrors(check(withField(citRequest(), 'paymentMethod.expirationYear', year)), [{ field: 'paymentMethod.expirationYear', code: 'ERR_MODEL_RANGE' }]);
  });

  it('accepts a full card number when token is false, if it is a valid card number', () => {
    let req = withField(citRequest(), 'paymentMethod.token', false);
    expectValid(check(withField(req, 'paymentMethod.cardNumber', '4111111111111111')));
    req = withField(req, 'paymentMethod.cardNumber', '4111111111111112');
    const r = check(req);
    expectOnlyErrors(r, [{ field: 'paymentMethod.cardNumber', code: 'ERR_MODEL_FORMAT' }]);
    expect(JSON.stringify(r)).not.toContain('4111111111111112');
  });

  it.each([undefined, true])('refuses a full card number sent as a token (token %s)', (token) => {
    const req = withField(withField(citRequest(), 'paymentMethod.token', token), 'paymentMethod.cardNumber', '4111 1111 1111 1111');
    const r = check(req);
    expectOnlyErrors(r, [{ field: 'paymentMethod.cardNumber', code: 'ERR_MODEL_FORMAT' }]);
    expect(JSON.stringify(r)).not.toContain('4111');
  });
});

describe('identifiers', () => {
  it.each(['idempotencyKey', 'siteId', 'mid'])('%s accepts a UUID in either case', (path) => {
    expectValid(check(withField(citRequest(), path, '7C9E6679-7425-40DE-944B-E07FC1F90AE7')));
  });

  it.each(['idempotencyKey', 'siteId', 'mid'])('%s that is not a UUID → ERR_MODEL_FORMAT', (path) => {
    for (const bad of ['ORD-1', '7c9e6679742540de944be07fc1f90ae7', '7c9e6679-7425-40de-944b-e07fc1f90ae', '7c9e6679-7425-40de-944b-e07fc1f90aeg']) {
      expectOnlyErrors(check(withField(citRequest(), path, bad)), [{ field: path, code: 'ERR_MODEL_FORMAT' }]);
    }
  });

  it('does not require transaction.id to be a GUID (gateways use their own ids)', () => {
    expectValid(check(withField(citRequest(), 'transaction.id', 'ch_3PZk2mLkdIwHu7ix')));
  });
});

describe('payer', () => {
  it.each(['jane@example.com', 'a.b+tag@sub.example.co.uk', 'NA'])('email %j is accepted', (email) => {
    expectValid(check(withField(citRequest(), 'payer.email', email)));
  });

  it.each(['jane', 'jane@', '@example.com', 'na', 'N/A'])('email %j → ERR_MODEL_FORMAT', (email) => {
    expectOnlyErrors(check(withField(citRequest(), 'payer.email', email)), [{ field: 'payer.email', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('email NA needs a phone', () => {
    let req = withField(citRequest(), 'payer.email', 'NA');
    req = withField(req, 'payer.phone', undefined);
    expectOnlyErrors(check(req), [{ field: 'payer.phone', code: 'ERR_MODEL_REQUIRED' }]);
    expectOnlyErrors(check(withField(req, 'payer.phone', '')), [{ field: 'payer.phone', code: 'ERR_MODEL_REQUIRED' }]);
    expectValid(check(withField(req, 'payer.phone', '+1 555 0100')));
  });

  it('a real email needs no phone', () => {
    expectValid(check(withField(citRequest(), 'payer.phone', undefined)));
  });

  it.each(['1990-02-30', 'yesterday', '0001-01-01'])('birthdate %j → ERR_MODEL_FORMAT', (birthdate) => {
    expectOnlyErrors(check(withField(citRequest(), 'payer.birthdate', birthdate)), [{ field: 'payer.birthdate', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('responseCodeSource and cavvResultCode may be NA', () => {
    let req = withField(citRequest(), 'transaction.responseCodeSource', 'NA');
    req = withField(req, 'transaction.cavvResultCode', 'NA');
    expectValid(check(req));
  });
});

describe('codes', () => {
  it.each(['billingInformation.countryCode', 'shippingInformation.countryCode', 'paymentMethod.cardCountry'])('%s must be an ISO 3166-1 alpha-2 code', (path) => {
    // A Canadian billing address carries a province, not a US state code.
    const base = path === 'billingInformation.countryCode' ? withField(citRequest(), 'billingInformation.state', 'ON') : citRequest();
    expectValid(check(withField(base, path, 'CA')));
    for (const bad of ['XX', 'Atlantis', 'U']) {
      expectOnlyErrors(check(withField(citRequest(), path, bad)), [{ field: path, code: 'ERR_MODEL_FORMAT' }]);
    }
  });

  it.each(['transaction.currency', 'subscription.currency'])('%s must be an ISO 4217 code', (path) => {
    expectValid(check(withField(mitRequest(), path, 'EUR')));
    for (const bad of ['ABC', 'US', 'dollars']) {
      expectOnlyErrors(check(withField(mitRequest(), path, bad)), [{ field: path, code: 'ERR_MODEL_FORMAT' }]);
    }
  });

  it.each(['10001', '10001-2345', '100012345'])('zipcode %j is accepted', (zip) => {
    expectValid(check(withField(citRequest(), 'billingInformation.zipcode', zip)));
  });

  it.each(['1000', '100012', '10001-234', 'SW1A 1AA', 'ABCDE'])('zipcode %j → ERR_MODEL_FORMAT (billing and shipping)', (zip) => {
    for (const path of ['billingInformation.zipcode', 'shippingInformation.zipcode']) {
      expectOnlyErrors(check(withField(citRequest(), path, zip)), [{ field: path, code: 'ERR_MODEL_FORMAT' }]);
    }
  });

  it.each([-1, 10000])('merchant.mcc %i → ERR_MODEL_RANGE', (mcc) => {
    expectOnlyErrors(check(withField(citRequest(), 'merchant.mcc', mcc)), [{ field: 'merchant.mcc', code: 'ERR_MODEL_RANGE' }]);
  });
});

describe('orderSource', () => {
  it.each(['ecommerce', 'terminal', 'vterminal', 'installment'])('%s is accepted without warning', (source) => {
    const r = check(withField(citRequest(), 'orderSource', source));
    expect(expectValid(r).orderSource).toBe(source);
    expect(r.warnings).toEqual([]);
  });

  it('is case-insensitive and normalised to lower case', () => {
    expect(expectValid(check(withField(citRequest(), 'orderSource', 'ECommerce'))).orderSource).toBe('ecommerce');
  });

  it('keeps an unknown value and warns', () => {
    const r = check(withField(citRequest(), 'orderSource', 'Phone'));
    expect(expectValid(r).orderSource).toBe('phone');
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([['orderSource', 'WARN_MODEL_UNKNOWN_ORDER_SOURCE']]);
  });
});
