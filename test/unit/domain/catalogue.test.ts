// The model's codes in the error catalogue, and what error messages may say.
import { describe, it, expect } from 'vitest';
import type { FieldError } from '../../../src/errors.ts';
import { ERRORS } from '../../../src/catalogue.ts';
import { MODEL_ERRORS, MODEL_WARNINGS, validateEvaluate, validateTokenize } from '../../../src/domain/index.ts';
import { citRequest, tokenizeRequest } from './fixtures.ts';
import { withField } from './helpers.ts';

const PAN = '4111111111111112';
const CVV = '98765';

describe('codes', () => {
  it('every model error is in the catalogue, named ERR_MODEL_*; validation errors are 400, not retryable', () => {
    for (const [code, spec] of Object.entries(MODEL_ERRORS)) {
      expect(code).toMatch(/^ERR_MODEL_[A-Z_]+$/);
      expect(ERRORS).toHaveProperty(code);
      expect(spec.retryable).toBe(false);
      expect(spec.status).toBe(code === 'ERR_MODEL_ILLEGAL_TRANSITION' ? 409 : 400);
    }
  });

  it('warnings are not errors', () => {
    for (const code of Object.keys(MODEL_WARNINGS)) {
      expect(code).toMatch(/^WARN_MODEL_[A-Z_]+$/);
      expect(ERRORS).not.toHaveProperty(code);
    }
  });
});

describe('messages', () => {
  function everyMessage(list: FieldError[]): string {
    return list.map((e) => `${e.field} ${e.message}`).join('\n');
  }

  it('name the field and use plain words', () => {
    const r = validateEvaluate(withField(citRequest(), 'billingInformation.zipcode', '1234'), { mode: 'production' });
    expect(r.ok ? [] : r.errors).toEqual([{
      field: 'billingInformation.zipcode',
      code: 'ERR_MODEL_FORMAT',
      message: 'billingInformation.zipcode must be 5 or 9 digits (ZIP or ZIP+4, such as 12345 or 12345-6789).',
    }]);
  });

  it('never repeat a card number or CVV, whatever is wrong with it', () => {
    const tokenize = validateTokenize(withField(withField(tokenizeRequest(), 'payment_method.credit_card.number', PAN), 'payment_method.credit_card.verification_value', CVV));
    const evaluate = validateEvaluate(withField(withField(citRequest(), 'paymentMethod.token', false), 'paymentMethod.cardNumber', PAN), { mode: 'production' });
    const typed = validateEvaluate(withField(citRequest(), 'paymentMethod.cardNumber', Number(PAN)), { mode: 'production' });
    for (const r of [tokenize, evaluate, typed]) {
      expect(r.ok).toBe(false);
      const text = r.ok ? '' : everyMessage([...r.errors, ...r.warnings]);
      expect(text).not.toContain(PAN);
      expect(text).not.toContain(CVV);
    }
  });
});
