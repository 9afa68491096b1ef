// Card numbers (PANs) as plain functions: clean-up, the Luhn check, masking and the brand of
// a number. No imports, so the logger can use the same masking without loading the vault.

/** Spaces and dashes removed: the forms in which people write card numbers. */
export function stripPan(text: string): string {
  return text.replace(/[\s-]/g, '');
}

/** Luhn (ISO/IEC 7812-1) check over ASCII digits; false for anything that is not digits. */
export function luhnValid(digits: string): boolean {
  if (digits.length === 0) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The only way a card number is ever shown: at most the first six and last four digits
 * (PCI DSS 3.4.1), the rest as `*`. Short inputs show less, so that the shown digits never
 * add up to more than half of the number.
 */
export function maskPan(pan: string): string {
  const digits = stripPan(pan);
  if (digits.length >= 13) return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
  if (digits.length >= 8) return `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
  return '*'.repeat(digits.length);
}

export const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'DINERS', 'JCB', 'UNIONPAY'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

// Issuer identification ranges of the networks' public tables; the first match wins, so the
// narrower ranges come first (Discover's 622126–622925 before UnionPay's 62).
const RANGES: readonly (readonly [low: number, high: number, digits: number, brand: CardBrand])[] = [
  [4, 4, 1, 'VISA'],
  [51, 55, 2, 'MASTERCARD'],
  [2221, 2720, 4, 'MASTERCARD'],
  [34, 34, 2, 'AMEX'],
  [37, 37, 2, 'AMEX'],
  [6011, 6011, 4, 'DISCOVER'],
  [644, 649, 3, 'DISCOVER'],
  [65, 65, 2, 'DISCOVER'],
  [622126, 622925, 6, 'DISCOVER'],
  [300, 305, 3, 'DINERS'],
  [36, 36, 2, 'DINERS'],
  [38, 39, 2, 'DINERS'],
  [3528, 3589, 4, 'JCB'],
  [62, 62, 2, 'UNIONPAY'],
];

/** The network of a card number from its leading digits, or undefined when unknown. */
export function cardBrandOf(pan: string): CardBrand | undefined {
  for (const [low, high, digits, brand] of RANGES) {
    const prefix = Number(pan.slice(0, digits));
    if (pan.length >= digits && prefix >= low && prefix <= high) return brand;
  }
  return undefined;
}

// The card ranges the networks issue, with the lengths of their numbers: the ranges above and
// those of cards the vault knows no brand for (Maestro, Mir, RuPay). Any match counts.
const UP_TO_19 = [16, 17, 18, 19];
const ISSUED: readonly (readonly [low: number, high: number, digits: number, lengths: readonly number[]])[] = [
  [4, 4, 1, [13, 16, 19]], // Visa
  [51, 55, 2, [16]], [2221, 2720, 4, [16]], // Mastercard
  [34, 34, 2, [15]], [37, 37, 2, [15]], // American Express
  [6011, 6011, 4, UP_TO_19], [644, 649, 3, UP_TO_19], [65, 65, 2, UP_TO_19], [622126, 622925, 6, UP_TO_19], // Discover
  [300, 305, 3, [14, ...UP_TO_19]], [36, 36, 2, [14, ...UP_TO_19]], [38, 39, 2, UP_TO_19], // Diners Club
  [3528, 3589, 4, UP_TO_19], // JCB
  [62, 62, 2, UP_TO_19], // UnionPay
  [50, 50, 2, [13, 14, 15, ...UP_TO_19]], [56, 69, 2, [13, 14, 15, ...UP_TO_19]], // Maestro
  [2200, 2204, 4, UP_TO_19], // Mir
  [60, 60, 2, [16]], [81, 82, 2, [16]], [508, 508, 3, [16]], // RuPay
];

/**
 * Whether Luhn-valid digits could be a card a network issued: a network's range and one of its
 * lengths. One random number in ten passes Luhn, so identifiers made of 13–19 digits (a shop's
 * 13-digit order ids, a gateway's 16-digit references, Visa's 15-digit transaction ids) would
 * be taken for card numbers one time in ten on Luhn alone; this narrows that to numbers a
 * payer could hold.
 */
export function isIssuedCardNumber(digits: string): boolean {
  if (!luhnValid(digits)) return false;
  for (const [low, high, n, lengths] of ISSUED) {
    let prefix = 0;
    for (let i = 0; i < n; i++) prefix = prefix * 10 + (digits.charCodeAt(i) - 48);
    if (prefix >= low && prefix <= high && lengths.includes(digits.length)) return true;
  }
  return false;
}
