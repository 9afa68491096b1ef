// The string formats the spec defines, as a table without Ajv: each format's name (it appears
// in the published schema), its check, and the plain words a merchant reads when a value does
// not match; the words never repeat the value, so a card number or CVV can never end up in an
// error message. The model's Ajv instance (formats.ts) registers these; the fast checks
// (checks.ts) and commands that validate without Ajv read them here, so loading them costs no
// Ajv (issue 28: Ajv was a fifth of `rescued orders list`).
import { luhnValid } from '../vault/pan.ts';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { COUNTRY_CODES, CURRENCY_CODES } from './reference.ts';
import { isCanonicalDate, isCanonicalDateTime } from './dates.ts';

// ajv-formats' RFC 5321-shaped address pattern (its "full" mode).
const EMAIL = fullFormats.email as RegExp;

/** 8-4-4-4-12 hex digits, either case (a GUID as .NET writes it is a UUID). */
export function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) {
      return false;
    }
  }
  return true;
}

/** A card number: 12–19 ASCII digits with a valid Luhn check digit. */
export function isCardNumber(digits: string): boolean {
  return /^\d{12,19}$/.test(digits) && luhnValid(digits);
}

export interface FormatDef {
  readonly validate: RegExp | ((value: string) => boolean);
  readonly words: string;
}

// Keyed by format name; FORMAT_WORDS below is derived from the same table.
export const FORMATS = {
  uuid: { validate: isUuid, words: 'must be a UUID, such as 0f8fad5b-d9cb-469f-a165-70867728950e' },
  'iso3166-alpha2': { validate: (s) => COUNTRY_CODES.has(s), words: 'must be an ISO 3166-1 alpha-2 country code, such as US' },
  iso4217: { validate: (s) => CURRENCY_CODES.has(s), words: 'must be an ISO 4217 currency code, such as USD' },
  zipcode: { validate: /^\d{5}(?:-?\d{4})?$/, words: 'must be 5 or 9 digits (ZIP or ZIP+4, such as 12345 or 12345-6789)' },
  'card-bin': { validate: /^\d{6}$/, words: 'must be the first 6 digits of the card' },
  'card-last4': { validate: /^\d{4}$/, words: 'must be the last 4 digits of the card' },
  'email-or-na': { validate: (s) => s === 'NA' || EMAIL.test(s), words: 'must be an email address, or NA when none is available' },
  'card-number': { validate: isCardNumber, words: 'must be a valid card number (12 to 19 digits)' },
  'card-cvv': { validate: /^(?:\d{3,4})?$/, words: 'must be 3 or 4 digits, or empty when unavailable' },
  'card-month': { validate: /^(?:0[1-9]|1[0-2])$/, words: 'must be a two-digit month, 01 to 12' },
  'card-year': { validate: /^\d{4}$/, words: 'must be a four-digit year' },
  'card-token': { validate: /^tok_[A-Za-z0-9_-]{32}$/, words: 'must be a card token from /v1/tokenize (tok_ and 32 characters)' },
  // The normaliser turns every accepted date into one canonical form; these two accept only
  // that form, so a date the normaliser could not read fails here whatever it looks like.
  'date-time': { validate: isCanonicalDateTime, words: 'must be a date and time in ISO 8601 (2026-12-01T00:00:00Z) or RFC 1123 (Tue, 01 Dec 2026 00:00:00 GMT) form' },
  date: { validate: isCanonicalDate, words: 'must be a date in ISO 8601 (1990-05-01) or RFC 1123 form' },
  // Mastercard Merchant Advice Code: two digits once normalised (3 → 03); empty means none.
  'advice-code': { validate: /^(?:\d{2})?$/, words: 'must be a two-digit Mastercard Merchant Advice Code, such as 03 or 21, or empty' },
  'bearer-token': { validate: /^\S+$/, words: 'must be a bearer token: "Bearer" followed by the access token' },
} as const satisfies Record<string, FormatDef>;

export const FORMAT_WORDS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FORMATS).map(([name, def]) => [name, def.words]),
);

/** Each format's check, as Ajv runs it (a RegExp is tested, a function called). */
export const FORMAT_CHECKS: Readonly<Record<string, FormatDef['validate']>> = Object.fromEntries(
  Object.entries(FORMATS).map(([name, def]) => [name, def.validate]),
);

