import { describe, expect, it } from 'vitest';
import { cardBrandOf, luhnValid, maskPan, stripPan } from '../../../src/vault/pan.ts';
import { scrubText } from '../../../src/log.ts';

describe('luhnValid', () => {
  it.each(['4111111111111111', '378282246310005', '36227206271667', '6011111111111117', '0', '18'])('accepts %s', (n) => expect(luhnValid(n)).toBe(true));
  it.each(['4111111111111112', '378282246310006', '1234567890123', '', '4111-1111', '41111111111111x1'])('refuses %s', (n) => expect(luhnValid(n)).toBe(false));
});

describe('stripPan', () => {
  it('removes spaces and dashes only', () => {
    expect(stripPan(' 4111 1111-1111\t1111 ')).toBe('4111111111111111');
    expect(stripPan('4111.1111')).toBe('4111.1111');
  });
});

describe('maskPan', () => {
  it('shows at most the first six and last four digits', () => {
    expect(maskPan('4111111111111111')).toBe('411111******1111');
    expect(maskPan('4111 1111 1111 1111')).toBe('411111******1111');
    expect(maskPan('378282246310005')).toBe('378282*****0005');
    expect(maskPan('6250941006528599016')).toBe('625094*********9016');
  });

  it('shows less of short numbers, never more than half of the digits', () => {
    expect(maskPan('123456789012')).toBe('********9012');
    expect(maskPan('12345678')).toBe('****5678');
    expect(maskPan('1234567')).toBe('*******');
  });

  it('is what the log scrubber writes', () => {
    expect(scrubText('card 5555555555554444 declined')).toBe(`card ${maskPan('5555555555554444')} declined`);
  });
});

describe('cardBrandOf', () => {
  it.each([
    ['4111111111111111', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['2223003122003222', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['6221260000000000', 'DISCOVER'],
    ['3566002020360505', 'JCB'],
    ['36227206271667', 'DINERS'],
    ['6200000000000005', 'UNIONPAY'],
  ])('%s is %s', (pan, brand) => expect(cardBrandOf(pan)).toBe(brand));

  it('is undefined for other ranges', () => {
    expect(cardBrandOf('9999999999999995')).toBeUndefined();
    expect(cardBrandOf('2720990000000000')).toBe('MASTERCARD');
    expect(cardBrandOf('2721000000000000')).toBeUndefined();
  });
});
