import { describe, expect, it } from 'vitest';
import { classifyDecline, tableClassOf } from '../../../src/declines/classify.ts';
import { gatewayOf } from '../../../src/declines/sources.ts';
import { classifyText } from '../../../src/declines/text.ts';
import { visaCategory } from '../../../src/declines/visa.ts';
import { resolveRules } from '../../../src/engine/rules.ts';

describe('responseCodeSource mapping', () => {
  it.each([
    ['Stripe', 'stripe'], ['STRIPE', 'stripe'], [' stripe ', 'stripe'], ['Braintree', 'braintree'], ['Adyen', 'adyen'],
    ['NMI', 'nmi'], ['Authorize.Net', 'authorizenet'], ['authorizenet', 'authorizenet'], ['authnet', 'authorizenet'],
    ['Checkout.com', 'checkoutcom'], ['checkout', 'checkoutcom'],
  ])('%s → %s', (name, gateway) => expect(gatewayOf(name)).toBe(gateway));

  it.each(['ISO', 'ISO8583', 'Visa', 'Mastercard', 'NA', '', 'FirstData', null])('%s reads a two-character code as ISO 8583', (source) => {
    const c = classifyDecline({ responseCodeSource: source, responseCode: '51', cardBrand: 'AMEX' });
    expect(c).toMatchObject({ source: 'iso8583', reason: 'insufficient_funds', class: 'soft', softKind: 'funds' });
  });

  it('falls back to free text when the code is not an ISO code and no gateway is named', () => {
    const c = classifyDecline({ responseCodeSource: 'SomeProcessor', responseCode: 'X-993', responseDescription: 'Card reported STOLEN', cardBrand: 'AMEX' });
    expect(c).toMatchObject({ source: 'text', reason: 'lost_or_stolen', class: 'hard' });
  });

  it('falls back to free text for a gateway code missing from its table', () => {
    const c = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'brand_new_code', responseDescription: 'Insufficient funds in account' });
    expect(c).toMatchObject({ source: 'text', reason: 'insufficient_funds', softKind: 'funds' });
  });

  it('treats NA with no usable text as a cautious soft-generic default', () => {
    const c = classifyDecline({ responseCodeSource: 'NA', responseCode: 'NA', responseDescription: 'NA' });
    expect(c).toEqual({ reason: 'unknown', class: 'soft', softKind: 'generic', source: 'default' });
  });
});

describe('precedence', () => {
  it('a gateway soft code whose raw ISO code is Visa category 1 is hard', () => {
    const c = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'do_not_honor', networkCode: '04', cardBrand: 'VISA' });
    expect(c).toMatchObject({ class: 'hard', visaCategory: 1, networkCode: '04' });
  });

  it('Checkout.com 20014 (data) is hard on Visa through its scheme code 14', () => {
    expect(classifyDecline({ responseCodeSource: 'Checkout.com', responseCode: '20014', cardBrand: 'Visa' })).toMatchObject({
      reason: 'invalid_card_number', class: 'hard', visaCategory: 1,
    });
    expect(classifyDecline({ responseCodeSource: 'Checkout.com', responseCode: '20014', cardBrand: 'Mastercard' })).toMatchObject({
      class: 'data',
    });
  });

  it('the raw issuer code refines a gateway generic decline', () => {
    const c = classifyDecline({ responseCodeSource: 'Adyen', responseCode: '27', networkCode: '51', cardBrand: 'Mastercard' });
    expect(c).toMatchObject({ reason: 'insufficient_funds', softKind: 'funds', source: 'iso8583' });
  });

  it('a specific gateway code is kept over the raw code', () => {
    const c = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'insufficient_funds', networkCode: '05', cardBrand: 'AMEX' });
    expect(c).toMatchObject({ reason: 'insufficient_funds', source: 'stripe' });
  });

  it('a gateway code beats free text', () => {
    const c = classifyDecline({ responseCodeSource: 'Braintree', responseCode: '2001', responseDescription: 'Card stolen', cardBrand: 'AMEX' });
    expect(c).toMatchObject({ reason: 'insufficient_funds', source: 'braintree' });
  });

  it('Visa category 3 makes a soft raw code a data decline, with Visa’s meaning of 82', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '82', cardBrand: 'VISA' });
    expect(c).toMatchObject({ reason: 'cvv_failure', class: 'data', visaCategory: 3 });
    expect(classifyDecline({ responseCodeSource: 'ISO', responseCode: '82', cardBrand: 'Mastercard' }).class).toBe('soft');
  });

  it('reads dated Visa rules for the day of the decline', () => {
    expect(visaCategory('57', new Date('2026-10-24T12:00:00Z'))).toBe(4);
    expect(visaCategory('57', new Date('2026-10-25T00:00:00Z'))).toBe(1);
    expect(visaCategory('57')).toBe(1);
    expect(visaCategory('83', new Date('2026-01-01T00:00:00Z'))).toBe(4);
    expect(visaCategory('ZZ')).toBe(4);
  });

  it('Stripe previously_declined_do_not_retry makes generic_decline hard', () => {
    const c = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'generic_decline', responseSubStatus: 'previously_declined_do_not_retry' });
    expect(c).toMatchObject({ reason: 'do_not_retry', class: 'hard' });
  });
});

describe('network and gateway advice', () => {
  it.each(['03', '3', '21'])('Mastercard MAC %s makes a soft decline hard', (mac) => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '51', cardBrand: 'Mastercard', merchantAdviceCode: mac });
    expect(c.class).toBe('hard');
    expect(c.advice).toMatchObject({ network: 'mastercard', action: 'stop' });
  });

  it('MAC 01 asks for new card data', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '05', cardBrand: 'MC', merchantAdviceCode: '01' });
    expect(c).toMatchObject({ reason: 'new_account_information', class: 'data', advice: { action: 'update_card' } });
  });

  it('MAC 25 keeps the code’s own soft kind and carries a 24 h delay', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '51', cardBrand: 'Mastercard', merchantAdviceCode: '25' });
    expect(c).toMatchObject({ reason: 'insufficient_funds', softKind: 'funds', advice: { action: 'retry_after', delayMs: 24 * 3_600_000 } });
  });

  it('a MAC is ignored on a Visa card', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '51', cardBrand: 'Visa', merchantAdviceCode: '03' });
    expect(c).toMatchObject({ class: 'soft' });
    expect(c.advice).toBeUndefined();
  });

  it('Stripe advice_code overrides the decline code', () => {
    const later = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'restricted_card', merchantAdviceCode: 'try_again_later', cardBrand: 'AMEX' });
    expect(tableClassOf(later)).toBe('soft-temporary');
    const never = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'insufficient_funds', merchantAdviceCode: 'do_not_try_again', cardBrand: 'AMEX' });
    expect(never).toMatchObject({ reason: 'do_not_retry', class: 'hard', advice: { network: 'stripe', action: 'stop' } });
    const data = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'do_not_honor', merchantAdviceCode: 'confirm_card_data', cardBrand: 'AMEX' });
    expect(data.class).toBe('data');
  });

  it('NMI 264 asks to wait days', () => {
    const c = classifyDecline({ responseCodeSource: 'NMI', responseCode: '264', cardBrand: 'AMEX' });
    expect(c.advice).toEqual({ network: 'gateway', code: '264', action: 'retry_after', delayMs: 72 * 3_600_000 });
  });

  it('Visa category 1 wins over a retry advice', () => {
    const c = classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'generic_decline', networkCode: '41', merchantAdviceCode: 'try_again_later', cardBrand: 'Visa' });
    expect(c.class).toBe('hard');
  });
});

describe('free-text fallback (ordered keyword groups)', () => {
  it.each([
    ['Do not try again', 'do_not_retry', 'hard'],
    ['Declined - DO NOT RETRY', 'do_not_retry', 'hard'],
    ["Don't retry this card", 'do_not_retry', 'hard'],
    ['Please try again later', 'try_again_later', 'soft-temporary'],
    ['Lost card, pick up', 'lost_or_stolen', 'hard'],
    ['Suspected fraud', 'suspected_fraud', 'hard'],
    ['Card expired', 'expired_card', 'data'],
    ['CVV2 mismatch', 'cvv_failure', 'data'],
    ['Insufficient funds', 'insufficient_funds', 'soft-funds'],
    ['NSF', 'insufficient_funds', 'soft-funds'],
    ['Issuer unavailable', 'issuer_unavailable', 'soft-temporary'],
    ['Duplicate transaction', 'duplicate', 'soft-generic'],
    ['Do Not Honour', 'do_not_honor', 'soft-generic'],
    ['Transaction not permitted', 'transaction_not_permitted', 'soft-generic'],
    ['Declined', 'generic_decline', 'soft-generic'],
    ['insufficient_funds', 'insufficient_funds', 'soft-funds'],
  ])('%s → %s %s', (text, reason, cls) => {
    expect(classifyText(text)).toEqual([reason, cls]);
  });

  it('matches whole words only', () => {
    expect(classifyText('scan complete')).toBeUndefined(); // not "sca"
    expect(classifyText('lostcard')).toBeUndefined();
    expect(classifyText('zipper')).toBeUndefined();
  });

  it('a stopping phrase wins over the retry words it contains', () => {
    expect(classifyText('Insufficient funds - do not try again')?.[1]).toBe('hard');
    expect(classifyText('Restricted card, stop recurring')?.[0]).toBe('stop_payment');
  });
});

describe('configurable classes', () => {
  it('overrides the class of a reason', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '59', cardBrand: 'AMEX' }, { reasonClasses: { suspected_fraud: 'soft-generic' } });
    expect(c).toMatchObject({ class: 'soft', softKind: 'generic' });
  });

  it('overrides one code of one source, over a reason override', () => {
    const opts = { reasonClasses: { restricted_card: 'hard' }, codeClasses: { 'stripe:restricted_card': 'soft-generic' } } as const;
    expect(classifyDecline({ responseCodeSource: 'Stripe', responseCode: 'restricted_card', cardBrand: 'AMEX' }, opts).class).toBe('soft');
    expect(classifyDecline({ responseCodeSource: 'Adyen', responseCode: '25', cardBrand: 'AMEX' }, opts).class).toBe('hard');
  });

  it('network rules still beat a config override', () => {
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '41', cardBrand: 'VISA' }, { reasonClasses: { lost_or_stolen: 'soft-generic' } });
    expect(c.class).toBe('hard');
  });

  it('takes the Mastercard stop list from the rules', () => {
    const rules = resolveRules({ mastercard: { stopAdvice: ['03'] } });
    const c = classifyDecline({ responseCodeSource: 'ISO', responseCode: '51', cardBrand: 'Mastercard', merchantAdviceCode: '21' }, { rules });
    expect(c.class).toBe('soft');
  });
});
