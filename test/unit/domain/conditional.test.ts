// Rules that depend on other fields: the MIT fields, the objects required when provided,
// the US state rule (DESIGN.md §2 "Conditional objects").
import { describe, it, expect } from 'vitest';
import { validateEvaluate } from '../../../src/domain/index.ts';
import { US_STATE_CODES } from '../../../src/domain/us-states.ts';
import { citRequest, mitRequest } from './fixtures.ts';
import { expectOnlyErrors, expectValid, withField } from './helpers.ts';

const check = (input: unknown) => validateEvaluate(input, { mode: 'production' });

describe('isMIT', () => {
  it('a CIT needs neither isRecurring, expiryDateUtc, subscription nor threeDSecure', () => {
    const req = citRequest();
    expect(req.isRecurring ?? req.expiryDateUtc ?? req.subscription ?? req.threeDSecure).toBeUndefined();
    expectValid(check(req));
  });

  it('isMIT true requires isRecurring', () => {
    expectOnlyErrors(check(withField(mitRequest(), 'isRecurring', undefined)), [{ field: 'isRecurring', code: 'ERR_MODEL_REQUIRED' }]);
  });

  it('isMIT true requires expiryDateUtc', () => {
    expectOnlyErrors(check(withField(mitRequest(), 'expiryDateUtc', null)), [{ field: 'expiryDateUtc', code: 'ERR_MODEL_REQUIRED' }]);
  });

  it('a non-recurring MIT needs expiryDateUtc but neither subscription nor threeDSecure', () => {
    let req = withField(mitRequest(), 'isRecurring', false);
    req = withField(req, 'subscription', undefined);
    req = withField(req, 'threeDSecure', undefined);
    expectValid(check(req));
  });

  it.each(['subscription', 'threeDSecure'])('isMIT and isRecurring true require %s', (name) => {
    expectOnlyErrors(check(withField(mitRequest(), name, undefined)), [{ field: name, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it('isRecurring true on a CIT requires nothing more', () => {
    expectValid(check(withField(citRequest(), 'isRecurring', true)));
  });

  it('says why the field is required', () => {
    const r = check(withField(mitRequest(), 'subscription', undefined));
    expect(r.ok ? '' : r.errors[0]?.message).toBe('subscription is required when isMIT and isRecurring are true.');
  });

  it('expiryDateUtc must be a date', () => {
    expectOnlyErrors(check(withField(mitRequest(), 'expiryDateUtc', 'next week')), [{ field: 'expiryDateUtc', code: 'ERR_MODEL_FORMAT' }]);
  });
});

describe('objects required when provided', () => {
  it.each([
    'subscription.subscriptionId', 'subscription.schemeTransactionId', 'subscription.schemeBrand', 'subscription.interval',
    'subscription.price', 'subscription.currency',
    'threeDSecure.ecommerceIndicator', 'threeDSecure.authenticationValue', 'threeDSecure.directoryServerTransactionId',
  ])('%s missing → ERR_MODEL_REQUIRED', (path) => {
    expectOnlyErrors(check(withField(mitRequest(), path, undefined)), [{ field: path, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it('checks a subscription sent with a CIT as well', () => {
    const req = withField(citRequest(), 'subscription', { subscriptionId: 'sub_1' });
    expectOnlyErrors(check(req), ['schemeTransactionId', 'schemeBrand', 'interval', 'price', 'currency'].map((f) => ({ field: `subscription.${f}`, code: 'ERR_MODEL_REQUIRED' })));
  });

  it.each(['subscription.paymentNumber', 'subscription.totalPayments', 'threeDSecure.threeDsVersion', 'threeDSecure.xid', 'threeDSecure.enrolled'])('%s is optional', (path) => {
    expectValid(check(withField(mitRequest(), path, undefined)));
  });

  it('subscription.price is an integer of cents, not negative', () => {
    expectOnlyErrors(check(withField(mitRequest(), 'subscription.price', -1)), [{ field: 'subscription.price', code: 'ERR_MODEL_RANGE' }]);
    expectOnlyErrors(check(withField(mitRequest(), 'subscription.price', 19.99)), [{ field: 'subscription.price', code: 'ERR_MODEL_TYPE' }]);
    expectOnlyErrors(check(withField(mitRequest(), 'subscription.price', '19.99')), [{ field: 'subscription.price', code: 'ERR_MODEL_TYPE' }]);
  });

  it('a merchant object needs id, mcc and country; without it nothing is asked', () => {
    expectValid(check(withField(citRequest(), 'merchant', undefined)));
    expectOnlyErrors(check(withField(citRequest(), 'merchant', { name: 'Shop' })), [
      { field: 'merchant.id', code: 'ERR_MODEL_REQUIRED' },
      { field: 'merchant.mcc', code: 'ERR_MODEL_REQUIRED' },
      { field: 'merchant.country', code: 'ERR_MODEL_REQUIRED' },
    ]);
  });

  it('shippingInformation is optional; phone, addressLine2 and state within it too', () => {
    expectValid(check(withField(citRequest(), 'shippingInformation', undefined)));
    let req = withField(citRequest(), 'shippingInformation.state', undefined);
    req = withField(req, 'shippingInformation.phone', undefined);
    expectValid(check(withField(req, 'shippingInformation.addressLine2', undefined)));
  });

  it('affiliate, orderItems and additionalFields carry only optional fields', () => {
    let req = withField(citRequest(), 'affiliate', {});
    req = withField(req, 'orderItems', [{}]);
    expectValid(check(withField(req, 'additionalFields', [{}])));
  });
});

describe('billingInformation.state', () => {
  it('is required for a US card', () => {
    const req = withField(citRequest(), 'billingInformation.state', undefined);
    expectOnlyErrors(check(req), [{ field: 'billingInformation.state', code: 'ERR_MODEL_REQUIRED' }]);
    expectOnlyErrors(check(withField(req, 'billingInformation.state', '')), [{ field: 'billingInformation.state', code: 'ERR_MODEL_REQUIRED' }]);
  });

  it('is required for a US card even with a foreign billing address, and then any text will do', () => {
    let req = withField(citRequest(), 'billingInformation.countryCode', 'CA');
    req = withField(req, 'billingInformation.state', undefined);
    expectOnlyErrors(check(req), [{ field: 'billingInformation.state', code: 'ERR_MODEL_REQUIRED' }]);
    expectValid(check(withField(req, 'billingInformation.state', 'ON')));
  });

  it('is not required for a foreign card, even with a US billing address', () => {
    let req = withField(citRequest(), 'paymentMethod.cardCountry', 'GB');
    req = withField(req, 'billingInformation.state', undefined);
    expectValid(check(req));
  });

  it.each(['CA', 'NY', 'DC', 'PR', 'GU', '06', '36', '72', '74', '95'])('accepts the ANSI INCITS 38 code %s on a US address', (state) => {
    expectValid(check(withField(citRequest(), 'billingInformation.state', state)));
  });

  it.each(['XX', 'ZZ', '03', '99', 'AE', 'New York', 'N'])('rejects %j on a US address with ERR_MODEL_FORMAT', (state) => {
    expectOnlyErrors(check(withField(citRequest(), 'billingInformation.state', state)), [{ field: 'billingInformation.state', code: 'ERR_MODEL_FORMAT' }]);
  });

  it('upper-cases a state code', () => {
    expect(expectValid(check(withField(citRequest(), 'billingInformation.state', 'ny'))).billingInformation.state).toBe('NY');
  });

  it('checks shippingInformation.state against the same code set on a US address', () => {
    expectOnlyErrors(check(withField(citRequest(), 'shippingInformation.state', 'XX')), [{ field: 'shippingInformation.state', code: 'ERR_MODEL_FORMAT' }]);
    let req = withField(citRequest(), 'shippingInformation.countryCode', 'DE');
    req = withField(req, 'shippingInformation.zipcode', '10115');
    expectValid(check(withField(req, 'shippingInformation.state', 'BE')));
  });

  it('the code set has 50 states and DC, 9 outlying areas, 9 minor islands: 60 letter codes and 69 digit codes', () => {
    const codes = [...US_STATE_CODES];
    expect(codes.filter((c) => /^[A-Z]{2}$/.test(c))).toHaveLength(60);
    expect(codes.filter((c) => /^\d{2}$/.test(c))).toHaveLength(69);
  });
});
