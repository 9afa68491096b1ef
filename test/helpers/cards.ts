// Card numbers for tests and benchmarks: Luhn-valid numbers made up on the spot (for
// production-mode tests, where any valid card is accepted).
import { randomInt } from 'node:crypto';

/** The prefix with the Luhn check digit appended. */
export function withCheckDigit(prefix: string): string {
  let sum = 0;
  for (let i = 0; i < prefix.length; i++) {
    let d = prefix.charCodeAt(prefix.length - 1 - i) - 48;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${prefix}${(10 - (sum % 10)) % 10}`;
}

/** A random Luhn-valid 16-digit Visa-range number. */
export function randomPan(): string {
  let body = '4';
  for (let i = 0; i < 14; i++) body += String(randomInt(10));
  return withCheckDigit(body);
}
