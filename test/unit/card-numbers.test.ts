// The one card-number detector (src/card-numbers.ts), driven by numbers generated from a seed:
// random Luhn-valid numbers of every length from 13 to 19 and the networks' test numbers, each
// written in every spelling the detector knows, must be found and masked; identifiers, dates,
// phone numbers and amounts must be left alone. RESCUED_TEST_SEED=<n> replays another seed.
import { describe, expect, it } from 'vitest';
import { findCardNumbers, hasCardNumber, isIssuedCardNumber, maskCardNumbers, maskIdentifier } from '../../src/card-numbers.ts';
import { luhnValid, maskPan } from '../../src/vault/pan.ts';
import { luhnNumber, SPELLINGS, spell } from '../helpers/card-spellings.ts';
import { seeded } from '../helpers/seeded.ts';

const SEED = Number(process.env.RESCUED_TEST_SEED ?? 20261127);
const REAL = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '36227206271667', '4222222222222', '6250941006528599016'];

/** Every number of the run: the test PANs and, per length, a handful of random ones. */
function numbers(): string[] {
  const random = seeded(SEED);
  const out = [...REAL];
  for (let length = 13; length <= 19; length++) for (let k = 0; k < 6; k++) out.push(luhnNumber(random, length));
  return out;
}

describe(`the card-number detector (seed ${SEED})`, () => {
  const random = seeded(SEED + 1);
  const all = numbers();

  it('generates Luhn-valid numbers of 13 to 19 digits', () => {
    for (const n of all) expect(luhnValid(n), n).toBe(true);
    expect(new Set(all.map((n) => n.length))).toEqual(new Set([13, 14, 15, 16, 17, 18, 19]));
  });

  it.each(SPELLINGS)('finds and masks every number written %s, inside text and JSON', (spelling) => {
    for (const pan of all) {
      const written = spell(pan, spelling, random);
      for (const text of [written, `card: ${written} (call back)`, `{"note":"${written}","n":1}`]) {
        const found = findCardNumbers(text);
        expect(found.map((f) => f.digits), `${spelling}: ${text}`).toContain(pan);
        expect(hasCardNumber(text), text).toBe(true);
        const masked = maskCardNumbers(text);
        expect(masked, text).not.toBe(text);
        // Nothing of the number is left in any spelling, and the mask shows six and four at most.
        expect(findCardNumbers(masked).some((f) => f.digits.includes(pan)), masked).toBe(false);
        if (found.length === 1) expect(masked, text).toContain(maskPan(pan));
      }
    }
  });

  it('finds a number split by any run of spaces or tabs, with one punctuation mark at most between groups', () => {
    expect(maskCardNumbers('3782  822463  10005')).toBe('378282*****0005');
    expect(maskCardNumbers('4111 \t 1111    1111  -  1111 ok')).toBe('411111******1111 ok');
    expect(maskCardNumbers('4111\\t1111\\t1111\\t1111')).toBe('411111******1111');
    expect(hasCardNumber('4111--1111--1111--1111')).toBe(false);
    expect(hasCardNumber('4111.-1111.-1111.-1111')).toBe(false);
  });

  it('masks two numbers in one run, and a number beside an expiry and a CVV', () => {
    expect(maskCardNumbers('4111111111111111 5555555555554444')).toBe('411111******1111 555555******4444');
    expect(maskCardNumbers('4111 1111 1111 1111 12/29 123')).toContain('411111******1111');
  });

  it('leaves identifiers glued to letters, UUIDs and hex ids alone', () => {
    const hex = '0123456789abcdef';
    const ids: string[] = ['ORD-4111111111111111', 'a4111111111111111', '4111111111111111a', 'x\\u00414111111111111111', 'mid f1f4ed7a-1662-4900-0008-2297fdc33840'];
    for (let i = 0; i < 300; i++) {
      const h = (n: number) => Array.from({ length: n }, () => hex[Math.floor(random() * 16)]).join('');
      ids.push(`${h(8)}-${h(4)}-4${h(3)}-${h(4)}-${h(12)}`, h(24), h(40), `${h(4)}-${h(4)}-${h(4)}-${h(4)}-${h(4)}`);
    }
    for (const id of ids) expect(findCardNumbers(id), id).toEqual([]);
  });

  it('leaves dates, times, phone numbers, amounts and short runs alone', () => {
    for (const text of [
      '2026-11-27', '2026-11-27T12:00:00.000Z', '2026-11-27 12:00:00', '27/11/2026 12:00', '2026.11.27', 'Tue, 27 Nov 2026 12:00:00 GMT',
      '+1 555-123-4567', '+44 20 7946 0958', '(555) 123-4567', '+49 30 901820', '555.123.4567',
      '1,234.56', '1234.56', '$ 19.99', 'EUR 1 999,00', 'amount 1999 of 20000', 'order 12345 of 2024', '411111111111', '1234567890123',
    ]) {
      expect(findCardNumbers(text), text).toEqual([]);
    }
  });

  it('tells numbers a network could issue from other Luhn-valid identifiers', () => {
    for (const pan of REAL) expect(isIssuedCardNumber(pan), pan).toBe(true);
    // A shop's 13-digit order id, a gateway's 16-digit reference, a 15-digit Visa transaction id.
    const ids = [luhnNumber(random, 13, '17123456'), luhnNumber(random, 16, '8815'), luhnNumber(random, 15, '4832')];
    for (const id of ids) {
      expect(luhnValid(id), id).toBe(true);
      expect(isIssuedCardNumber(id), id).toBe(false);
    }
    expect(maskIdentifier('ORD 3782-822463-10005')).toBe('ORD 378282*****0005');
    expect(maskIdentifier(ids[0]!)).toBe(ids[0]);
    expect(maskIdentifier(null)).toBeNull();
  });
});
