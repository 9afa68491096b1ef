// Field builders shared by the request schemas, so each rule of the spec (what a UUID is,
// what a country code is, what "required" means for a string) is written once.
import { Type, type TInteger, type TString, type TOptional } from '@sinclair/typebox';

type Opts = { description?: string; maxLength?: number };

/**
 * The longest a text field of the request model may be, unless the field says otherwise. The
 * spec sets no lengths for ids, names or codes; 255 holds every real one and keeps a hostile
 * 100,000-character value out of the database and the logs.
 */
export const MAX_TEXT = 255;

/** A required string: present and not empty (an empty string carries nothing). */
export const Text = (opts: Opts = {}): TString => Type.String({ minLength: 1, maxLength: MAX_TEXT, ...opts });

/** An optional string; any value, including empty. */
export const OptionalText = (opts: Opts = {}): TOptional<TString> => Type.Optional(Type.String({ maxLength: MAX_TEXT, ...opts }));

export const Uuid = (opts: Opts = {}): TString => Type.String({ format: 'uuid', maxLength: 36, ...opts });

/** Always a UTC ISO string after normalisation (ISO 8601 and RFC 1123 are accepted). */
export const DateTimeUtc = (opts: Opts = {}): TString => Type.String({ format: 'date-time', maxLength: 64, ...opts });

export const CountryCode = (opts: Opts = {}): TString =>
  Type.String({ format: 'iso3166-alpha2', maxLength: 8, description: 'ISO 3166-1 alpha-2 country code.', ...opts });

export const CurrencyCode = (opts: Opts = {}): TString =>
  Type.String({ format: 'iso4217', maxLength: 8, description: 'ISO 4217 currency code.', ...opts });

/** 5 or 9 digits (the spec, for billing and shipping); ZIP+4 may carry its hyphen. */
export const Zipcode = (): TString => Type.String({ format: 'zipcode', maxLength: 16, description: '5 or 9 digits.' });

/** Two-letter or two-digit ANSI INCITS 38 code for US addresses (checked in rules.ts). */
export const State = (): TOptional<TString> =>
  Type.Optional(Type.String({ maxLength: 8, description: 'ANSI INCITS 38:2009 two-letter or two-digit code (US addresses).' }));

/** Said of integers that one listing types as string; error messages repeat it. */
export const NUMERIC_TEXT_NOTE = 'Digits in a string are accepted.';

/** An integer that may arrive as digits in a string (normalise.ts converts it). */
export const LenientInteger = (opts: { minimum?: number; description?: string } = {}): TInteger =>
  Type.Integer({ ...opts, description: [opts.description, NUMERIC_TEXT_NOTE].filter(Boolean).join(' ') });

/** A Mastercard Merchant Advice Code (MAC): two digits; a number or one digit is normalised (3 → "03"). */
export const AdviceCode = (opts: Opts = {}): TOptional<TString> =>
  Type.Optional(Type.String({ format: 'advice-code', maxLength: 8, description: 'Mastercard Merchant Advice Code of the decline (two digits, such as 03 or 21); a number or one digit is accepted.', ...opts }));
