// Transmit input: the evaluate model read leniently (DESIGN.md §2 "Transmit input").
import { describe, it, expect } from 'vitest';
import { TransmitRequestSchema, validateTransmit, type TransmitRequest } from '../../../src/domain/index.ts';
import { ajv } from '../../../src/domain/formats.ts';
import { citRequest, mitRequest } from './fixtures.ts';
import { errorsOf, expectOnlyErrors, expectValid, withField } from './helpers.ts';

const transmit = (input: unknown) => validateTransmit(input, { mode: 'production' });
const conformsToSchema = ajv.compile(TransmitRequestSchema);

describe('transmit', () => {
  it('accepts a full approved-payment record without warnings', () => {
    const approved = withField(withField(citRequest(), 'isDeclined', false), 'transaction.responseCode', '00');
    const r = transmit(approved);
    expect(expectValid(r)).toEqual(approved);
    expect(r.warnings).toEqual([]);
  });

  it('needs only orderId, transaction and payer', () => {
    const value: TransmitRequest = expectValid(transmit({ orderId: 'ORD-9', transaction: { amount: 1500, currency: 'USD' }, payer: {} }));
    expect(value.transaction.amount).toBe(1500);
    expect(conformsToSchema(value)).toBe(true);
  });

  it.each(['orderId', 'transaction', 'payer'])('%s missing → ERR_MODEL_REQUIRED (an error)', (field) => {
    expectOnlyErrors(transmit(withField(citRequest(), field, undefined)), [{ field, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it.each([['orderId', 7], ['transaction', 'tx'], ['payer', []]])('%s of the wrong type → ERR_MODEL_TYPE (an error)', (field, value) => {
    expectOnlyErrors(transmit(withField(citRequest(), field, value)), [{ field, code: 'ERR_MODEL_TYPE' }]);
  });

  it('turns other problems into warnings and leaves those fields out', () => {
    let req = withField(mitRequest(), 'transaction.amount', 50000);
    req = withField(req, 'payer.email', 'not-an-email');
    req = withField(req, 'billingInformation.state', 'XX');
    req = withField(req, 'orderItems[0].quantity', 'many');
    req = withField(req, 'orderItems[1]', 'junk');
    req = withField(req, 'idempotencyKey', undefined);
    req = withField(req, 'subscription', undefined);
    const r = transmit(req);
    const value = expectValid(r);
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual(expect.arrayContaining([
      ['transaction.amount', 'ERR_MODEL_RANGE'],
      ['payer.email', 'ERR_MODEL_FORMAT'],
      ['billingInformation.state', 'ERR_MODEL_FORMAT'],
      ['orderItems[0].quantity', 'ERR_MODEL_TYPE'],
      ['orderItems[1]', 'ERR_MODEL_TYPE'],
    ]));
    // Absent fields are not problems: no warning for idempotencyKey or subscription.
    expect(r.warnings).toHaveLength(5);
    expect(value.transaction.amount).toBeUndefined();
    expect(value.payer.email).toBeUndefined();
    expect(value.billingInformation?.state).toBeUndefined();
    expect(value.orderItems).toEqual([{ sku: 'SKU-1', name: 'Monthly box', amount: 3999, tax: 0 }]);
    expect(value.transaction.currency).toBe('USD');
    expect(conformsToSchema(value)).toBe(true);
  });

  it('removes empty strings in place of required text', () => {
    const value = expectValid(transmit(withField(citRequest(), 'transaction.responseCode', '')));
    expect(value.transaction.responseCode).toBeUndefined();
  });

  it("never changes the caller's input", () => {
    const req = withField(citRequest(), 'transaction.amount', 50000);
    const copy = structuredClone(req);
    expectValid(transmit(req));
    expect(req).toEqual(copy);
  });

  it('the transmit schema requires only the three fields, at any depth', () => {
    const requiredLists: string[][] = [];
    JSON.stringify(TransmitRequestSchema, (key, value: unknown) => {
      if (key === 'required' && Array.isArray(value)) requiredLists.push(value as string[]);
      return value;
    });
    expect(requiredLists).toEqual([['orderId', 'transaction', 'payer']]);
  });

  it('applies normalisation as evaluate does', () => {
    const value = expectValid(transmit({ OrderId: 'ORD-1', Transaction: { TimestampUtc: 'Sun, 01 Nov 2026 00:00:00 GMT' }, payer: { email: null } }));
    expect(value).toEqual({ orderId: 'ORD-1', transaction: { timestampUtc: '2026-11-01T00:00:00.000Z' }, payer: {}, orderSource: 'ecommerce' });
    expect(errorsOf(transmit({}))).toHaveLength(3);
  });
});
