// The tokenize request, snake_case as the spec writes it. Card data never appears in an
// error message.
import { describe, it, expect } from 'vitest';
import { validateTokenize } from '../../../src/domain/index.ts';
import { tokenizeRequest } from './fixtures.ts';
import { expectOnlyErrors, expectValid, withField } from './helpers.ts';

const CARD = 'payment_method.credit_card';

describe('tokenize request', () => {
  it('validates the spec example shape', () => {
    expect(expectValid(validateTokenize(tokenizeRequest()))).toEqual(tokenizeRequest());
  });

  it('removes spaces and hyphens from the card number', () => {
    const value = expectValid(validateTokenize(withField(tokenizeRequest(), `${CARD}.number`, '4111 1111-1111 1111')));
    expect(value.payment_method.credit_card.number).toBe('4111111111111111');
  });

  it('sense_key and verification_value are optional; the CVV may be empty', () => {
    expectValid(validateTokenize(withField(tokenizeRequest(), 'payment_method.sense_key', undefined)));
    expectValid(validateTokenize(withField(tokenizeRequest(), `${CARD}.verification_value`, undefined)));
    expectValid(validateTokenize(withField(tokenizeRequest(), `${CARD}.verification_value`, '')));
  });

  it.each(['payment_method', CARD, `${CARD}.first_name`, `${CARD}.last_name`, `${CARD}.number`, `${CARD}.month`, `${CARD}.year`])('%s missing → ERR_MODEL_REQUIRED', (path) => {
    expectOnlyErrors(validateTokenize(withField(tokenizeRequest(), path, undefined)), [{ field: path, code: 'ERR_MODEL_REQUIRED' }]);
  });

  it.each([
    ['number', '4111111111111112'],
    ['number', '41111111'],
    ['number', '4111-abcd-1111-1111'],
    ['verification_value', '12'],
    ['verification_value', '12345'],
    ['month', '1'],
    ['month', '13'],
    ['month', '00'],
    ['year', '29'],
    ['year', '20290'],
  ])('%s %j → ERR_MODEL_FORMAT, without echoing it', (field, value) => {
    const r = validateTokenize(withField(tokenizeRequest(), `${CARD}.${field}`, value));
    expectOnlyErrors(r, [{ field: `${CARD}.${field}`, code: 'ERR_MODEL_FORMAT' }]);
    if (value.length > 2) expect(JSON.stringify(r)).not.toContain(value);
  });

  it.each(['month', 'year', 'number'])('%s as a number → ERR_MODEL_TYPE (the spec types it as a string)', (field) => {
    expectOnlyErrors(validateTokenize(withField(tokenizeRequest(), `${CARD}.${field}`, 12)), [{ field: `${CARD}.${field}`, code: 'ERR_MODEL_TYPE' }]);
  });

  it('accepts capitalised keys and drops unknown ones with a warning', () => {
    const req = { Payment_Method: { credit_card: { ...(tokenizeRequest().payment_method as { credit_card: object }).credit_card, nickname: 'work' } } };
    const r = validateTokenize(req);
    expectValid(r);
    expect(r.warnings.map((w) => w.field)).toEqual([`${CARD}.nickname`]);
  });
});
