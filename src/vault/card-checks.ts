// The checks a card must pass before it enters the vault, for both ways in: the tokenize
// body (strings, snake_case) and a full number at the edge of evaluate or a batch
// (paymentMethod, integers). Each failed rule is one FieldError naming the field; messages
// are built from the rule, never from the value, so a card number or CVV is never echoed.
import type { FieldError } from '../error-types.ts';
import { luhnValid, stripPan } from './pan.ts';

/** A card as it arrives, before any check: every value may be missing or of any type. */
export interface CardInput {
  number: unknown;
  month: unknown;
  year: unknown;
  cvv?: unknown;
  /** Either both names (tokenize) or one holder name (paymentMethod). */
  firstName?: unknown;
  lastName?: unknown;
  holderName?: unknown;
}

/** The request's names for the fields of CardInput, so errors point at what was sent. */
export type CardFieldNames = Readonly<Record<keyof CardInput, string>>;

export const TOKENIZE_FIELDS: CardFieldNames = {
  number: 'payment_method.credit_card.number',
  month: 'payment_method.credit_card.month',
  year: 'payment_method.credit_card.year',
  cvv: 'payment_method.credit_card.verification_value',
  firstName: 'payment_method.credit_card.first_name',
  lastName: 'payment_method.credit_card.last_name',
  holderName: 'payment_method.credit_card.first_name',
};

export const PAYMENT_METHOD_FIELDS: CardFieldNames = {
  number: 'paymentMethod.cardNumber',
  month: 'paymentMethod.expirationMonth',
  year: 'paymentMethod.expirationYear',
  cvv: 'paymentMethod.cvv',
  firstName: 'paymentMethod.holderName',
  lastName: 'paymentMethod.holderName',
  holderName: 'paymentMethod.holderName',
};

/** A card that passed every check, in canonical form. */
export interface CheckedCard {
  pan: string;
  month: number;
  year: number;
  holderName: string;
  firstName?: string;
  lastName?: string;
}

export type CardCheck = { ok: true; card: CheckedCard } | { ok: false; errors: FieldError[] };

const err = (field: string, code: string, words: string): FieldError => ({ field, code, message: `${field} ${words}.` });

const missing = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function checkNumber(value: unknown, field: string): FieldError | string {
  if (missing(value)) return err(field, 'ERR_MODEL_REQUIRED', 'is required');
  // A JSON number cannot hold a 16-digit card number exactly; it is refused, not rounded.
  if (typeof value !== 'string') return err(field, 'ERR_MODEL_TYPE', 'must be text (a JSON string) of digits');
  const digits = stripPan(value);
  if (!/^\d+$/.test(digits)) return err(field, 'ERR_MODEL_FORMAT', 'must contain only digits (spaces and dashes are ignored)');
  if (digits.length < 12 || digits.length > 19) return err(field, 'ERR_MODEL_FORMAT', 'must be 12 to 19 digits long');
  if (!luhnValid(digits)) return err(field, 'ERR_MODEL_FORMAT', 'is not a valid card number (check digit)');
  return digits;
}

/** An integer or digits in a string (tokenize sends "MM" and "YYYY"). */
function wholeNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,4}$/.test(value)) return Number(value);
  return undefined;
}

function checkMonth(value: unknown, field: string): FieldError | number {
  if (missing(value)) return err(field, 'ERR_MODEL_REQUIRED', 'is required');
  const month = wholeNumber(value);
  if (month === undefined || month < 1 || month > 12) return err(field, 'ERR_MODEL_FORMAT', 'must be a month, 1 to 12 (MM)');
  return month;
}

function checkYear(value: unknown, field: string): FieldError | number {
  if (missing(value)) return err(field, 'ERR_MODEL_REQUIRED', 'is required');
  const year = wholeNumber(value);
  if (year === undefined || year < 1000 || (typeof value === 'string' && value.length !== 4)) return err(field, 'ERR_MODEL_FORMAT', 'must be a four-digit year (YYYY)');
  return year;
}

function checkName(value: unknown, field: string): FieldError | string {
  if (missing(value)) return err(field, 'ERR_MODEL_REQUIRED', 'is required');
  if (typeof value !== 'string') return err(field, 'ERR_MODEL_TYPE', 'must be text (a JSON string)');
  return value.trim();
}

function checkCvv(value: unknown, field: string): FieldError | undefined {
  // "Recommended. Leave empty if unavailable": absent, null and empty all mean none.
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{3,4}$/.test(value)) return err(field, 'ERR_MODEL_FORMAT', 'must be 3 or 4 digits, or empty when unavailable');
  return undefined;
}

// A card is good through the last day of its expiry month. Until that day has ended
// everywhere (UTC−12 is the last zone to leave it), a payer may still rightly use it.
const LAST_ZONE_MS = 12 * 60 * 60 * 1000;

export function isExpired(month: number, year: number, now: Date): boolean {
  const there = new Date(now.getTime() - LAST_ZONE_MS);
  const current = there.getUTCFullYear() * 12 + there.getUTCMonth();
  return year * 12 + (month - 1) < current;
}

function holder(card: CardInput, names: CardFieldNames, errors: FieldError[]): Pick<CheckedCard, 'holderName' | 'firstName' | 'lastName'> {
  if (card.firstName === undefined && card.lastName === undefined) {
    const name = checkName(card.holderName, names.holderName);
    if (typeof name !== 'string') errors.push(name);
    return { holderName: typeof name === 'string' ? name : '' };
  }
  const first = checkName(card.firstName, names.firstName);
  const last = checkName(card.lastName, names.lastName);
  for (const r of [first, last]) if (typeof r !== 'string') errors.push(r);
  const [f, l] = [typeof first === 'string' ? first : '', typeof last === 'string' ? last : ''];
  return { holderName: `${f} ${l}`, firstName: f, lastName: l };
}

/** Every rule at once: digits, length, Luhn, month, year, not expired, holder, CVV form. */
export function checkCard(card: CardInput, names: CardFieldNames, now: Date): CardCheck {
  const errors: FieldError[] = [];
  const pan = checkNumber(card.number, names.number);
  const month = checkMonth(card.month, names.month);
  const year = checkYear(card.year, names.year);
  for (const r of [pan, month, year, checkCvv(card.cvv, names.cvv)]) if (typeof r === 'object') errors.push(r);
  if (typeof month === 'number' && typeof year === 'number' && isExpired(month, year, now)) {
    errors.push(err(names.year, 'ERR_VAULT_CARD_EXPIRED', '(with its month) is in the past: the card has expired'));
  }
  const who = holder(card, names, errors);
  if (errors.length > 0 || typeof pan !== 'string' || typeof month !== 'number' || typeof year !== 'number') return { ok: false, errors };
  return { ok: true, card: { pan, month, year, ...who } };
}
