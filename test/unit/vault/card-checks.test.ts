// Each card rule with a passing and a failing case, asserting the field and the code.
import { describe, expect, it } from 'vitest';
import { checkCard, isExpired, PAYMENT_METHOD_FIELDS, TOKENIZE_FIELDS, type CardInput } from '../../../src/vault/card-checks.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const good: CardInput = { number: '4111111111111111', month: '12', year: '2030', cvv: '123', firstName: 'Ada', lastName: 'Lovelace' };
const F = TOKENIZE_FIELDS;

function errorsOf(patch: Partial<CardInput>, names = F, base: CardInput = good) {
  const r = checkCard({ ...base, ...patch }, names, NOW);
  return r.ok ? [] : r.errors.map((e) => [e.field, e.code]);
}

describe('checkCard', () => {
  it('passes a good card and answers it in canonical form', () => {
    const r = checkCard({ ...good, number: '4111 1111-1111 1111' }, F, NOW);
    expect(r).toEqual({ ok: true, card: { pan: '4111111111111111', month: 12, year: 2030, holderName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' } });
  });

  const cases: [rule: string, pass: Partial<CardInput>, fail: Partial<CardInput>, field: string, code: string][] = [
    ['number required', { number: '4111111111111111' }, { number: '' }, F.number, 'ERR_MODEL_REQUIRED'],
    ['number is text', { number: '4111111111111111' }, { number: 4111111111111111 }, F.number, 'ERR_MODEL_TYPE'],
    ['number digits only (spaces and dashes stripped)', { number: '4111-1111 1111-1111' }, { number: '4111x11111111111' }, F.number, 'ERR_MODEL_FORMAT'],
    ['number at least 12 digits', { number: '000000000000' }, { number: '00000000000' }, F.number, 'ERR_MODEL_FORMAT'],
    ['number at most 19 digits', { number: '6250941006528599016' }, { number: '00000000000000000000' }, F.number, 'ERR_MODEL_FORMAT'],
    ['number Luhn-valid', { number: '5555555555554444' }, { number: '5555555555554445' }, F.number, 'ERR_MODEL_FORMAT'],
    ['month required', { month: '01' }, { month: undefined }, F.month, 'ERR_MODEL_REQUIRED'],
    ['month 1 to 12 (low)', { month: '1' }, { month: '0' }, F.month, 'ERR_MODEL_FORMAT'],
    ['month 1 to 12 (high)', { month: 12 }, { month: '13' }, F.month, 'ERR_MODEL_FORMAT'],
    ['month a number', { month: '07' }, { month: 'July' }, F.month, 'ERR_MODEL_FORMAT'],
    ['year required', { year: '2030' }, { year: '' }, F.year, 'ERR_MODEL_REQUIRED'],
    ['year four digits', { year: '2031' }, { year: '31' }, F.year, 'ERR_MODEL_FORMAT'],
    ['not expired (this month still good)', { month: '06', year: '2026' }, { month: '05', year: '2026' }, F.year, 'ERR_VAULT_CARD_EXPIRED'],
    ['not expired (past year)', { month: '12', year: '2027' }, { month: '12', year: '2025' }, F.year, 'ERR_VAULT_CARD_EXPIRED'],
    ['first name required', { firstName: 'A' }, { firstName: '  ' }, F.firstName, 'ERR_MODEL_REQUIRED'],
    ['first name is text', { firstName: 'A' }, { firstName: 7 }, F.firstName, 'ERR_MODEL_TYPE'],
    ['last name required', { lastName: 'L' }, { lastName: undefined }, F.lastName, 'ERR_MODEL_REQUIRED'],
    ['CVV optional', { cvv: undefined }, { cvv: '12' }, F.cvv, 'ERR_MODEL_FORMAT'],
    ['CVV empty means none', { cvv: '' }, { cvv: '12345' }, F.cvv, 'ERR_MODEL_FORMAT'],
    ['CVV 3 or 4 digits', { cvv: '1234' }, { cvv: '12a' }, F.cvv, 'ERR_MODEL_FORMAT'],
  ];

  it.each(cases)('%s', (_rule, pass, fail, field, code) => {
    expect(errorsOf(pass)).toEqual([]);
    expect(errorsOf(fail)).toEqual([[field, code]]);
  });

  it('reports every failing field at once, never repeating a value', () => {
    const r = checkCard({ number: '4111111111111112', month: '13', year: '99', cvv: '98765', firstName: '', lastName: '' }, F, NOW);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field).sort()).toEqual([F.cvv, F.firstName, F.lastName, F.month, F.number, F.year].sort());
    const text = JSON.stringify(r.errors);
    expect(text).not.toContain('4111111111111112');
    expect(text).not.toContain('98765');
  });

  it('checks a paymentMethod (integers, one holder name) with its field names', () => {
    const pm: CardInput = { number: '4111111111111111', month: 3, year: 2029, holderName: 'Ada Lovelace' };
    expect(checkCard(pm, PAYMENT_METHOD_FIELDS, NOW)).toMatchObject({ ok: true, card: { month: 3, year: 2029, holderName: 'Ada Lovelace' } });
    expect(errorsOf({ holderName: '' }, PAYMENT_METHOD_FIELDS, pm)).toEqual([['paymentMethod.holderName', 'ERR_MODEL_REQUIRED']]);
    expect(errorsOf({ year: 2020 }, PAYMENT_METHOD_FIELDS, pm)).toEqual([['paymentMethod.expirationYear', 'ERR_VAULT_CARD_EXPIRED']]);
    expect(errorsOf({ month: 1.5 }, PAYMENT_METHOD_FIELDS, pm)).toEqual([['paymentMethod.expirationMonth', 'ERR_MODEL_FORMAT']]);
  });
});

describe('isExpired', () => {
  it('keeps a card good through its month until that month has ended everywhere', () => {
    expect(isExpired(5, 2026, new Date('2026-05-31T23:59:59Z'))).toBe(false);
    expect(isExpired(5, 2026, new Date('2026-06-01T11:00:00Z'))).toBe(false); // still 31 May at UTC−12
    expect(isExpired(5, 2026, new Date('2026-06-01T12:00:01Z'))).toBe(true);
    expect(isExpired(12, 2025, new Date('2026-01-02T00:00:00Z'))).toBe(true);
  });
});
