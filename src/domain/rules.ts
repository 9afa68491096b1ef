// The spec's rules that one object's schema cannot say: requirements that depend on other
// fields, the sandbox amount bound, code lists that apply to US addresses only. They run on
// the normalised input whether or not the schema passed, so every problem of an entry is
// reported at once; each rule looks only at values of the right type (a wrong type is
// already the schema's error).
import type { FieldError } from '../error-types.ts';
import { MODEL_WARNINGS } from './codes.ts';
import { fieldError } from './field-errors.ts';
import { isCardNumber } from './formats.ts';
import { ORDER_SOURCES } from './schemas/evaluate.ts';
import { MAX_PRIOR_ATTEMPTS } from './schemas/objects.ts';
import { US_STATE_CODES } from './us-states.ts';
import { isCanonicalDate, isCanonicalDateTime } from './dates.ts';

export type ModelMode = 'sandbox' | 'production';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const absent = (v: unknown): boolean => v === undefined || v === '';
const KNOWN_SOURCES: ReadonlySet<string> = new Set(ORDER_SOURCES);

/** Spec limits: amount > 10 cents in test calls (the schema already holds 0 < amount < 20000). */
const SANDBOX_MIN_AMOUNT_EXCLUSIVE = 10;

const RECURRING = 'is required when isMIT and isRecurring are true';

// "isMIT true: the MIT fields are required"; subscription and threeDSecure only for a
// recurring MIT (DESIGN.md §2 "Conditional objects").
function mitRules(req: Obj, errors: FieldError[]): void {
  if (req.isMIT !== true) return;
  if (req.isRecurring === undefined) errors.push(fieldError('isRecurring', 'ERR_MODEL_REQUIRED', 'is required when isMIT is true'));
  if (req.expiryDateUtc === undefined) errors.push(fieldError('expiryDateUtc', 'ERR_MODEL_REQUIRED', 'is required when isMIT is true'));
  if (req.isRecurring !== true) return;
  if (req.subscription === undefined) errors.push(fieldError('subscription', 'ERR_MODEL_REQUIRED', RECURRING));
  if (req.threeDSecure === undefined) errors.push(fieldError('threeDSecure', 'ERR_MODEL_REQUIRED', RECURRING));
}

// "email: when it cannot be provided send NA and provide phone instead."
function payerRules(req: Obj, errors: FieldError[]): void {
  const payer = obj(req.payer);
  if (payer?.email === 'NA' && absent(payer.phone)) {
    errors.push(fieldError('payer.phone', 'ERR_MODEL_REQUIRED', 'is required when payer.email is NA'));
  }
  // The order's own card is not one of its "other" cards, and none is listed twice.
  const others = payer?.otherCardTokens;
  if (!Array.isArray(others)) return;
  const own = obj(req.paymentMethod)?.cardNumber;
  if (typeof own === 'string' && others.includes(own)) {
    errors.push(fieldError('payer.otherCardTokens', 'ERR_MODEL_FORMAT', "must not list the order's own card (paymentMethod.cardNumber)"));
  } else if (new Set(others).size !== others.length) {
    errors.push(fieldError('payer.otherCardTokens', 'ERR_MODEL_FORMAT', 'must not list a token twice'));
  }
}

// billingInformation.state is required for US cards (paymentMethod.cardCountry US), as the
// spec says; a US billing address on a foreign card does not make it required. The code
// list (ANSI INCITS 38) applies to US addresses only: it has no codes for other countries.
function stateRules(req: Obj, errors: FieldError[]): void {
  const billing = obj(req.billingInformation);
  if (billing && obj(req.paymentMethod)?.cardCountry === 'US' && absent(billing.state)) {
    errors.push(fieldError('billingInformation.state', 'ERR_MODEL_REQUIRED', 'is required for a US card (paymentMethod.cardCountry US)'));
  }
  usStateRule(obj(req.billingInformation), 'billingInformation.state', errors);
  usStateRule(obj(req.shippingInformation), 'shippingInformation.state', errors);
}

function usStateRule(address: Obj | undefined, field: string, errors: FieldError[]): void {
  const state = address?.state;
  if (address?.countryCode === 'US' && typeof state === 'string' && state !== '' && !US_STATE_CODES.has(state)) {
    errors.push(fieldError(field, 'ERR_MODEL_FORMAT', 'must be a two-letter or two-digit ANSI INCITS 38 state code, such as CA or 06'));
  }
}

function amountRules(req: Obj, mode: ModelMode, errors: FieldError[]): void {
  const amount = obj(req.transaction)?.amount;
  if (mode === 'sandbox' && Number.isInteger(amount) && (amount as number) > 0 && (amount as number) <= SANDBOX_MIN_AMOUNT_EXCLUSIVE) {
    errors.push(fieldError('transaction.amount', 'ERR_MODEL_RANGE', 'must be greater than 10 and less than 20000 (cents) in sandbox mode'));
  }
}

// A token holds letters, so this scan ends at once for nearly every request; only text
// that could be a card number once spaces and hyphens are removed goes on to the check.
function digitsSpacesHyphens(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || c === 32 || c === 45)) return false;
  }
  return true;
}

// A full card number may be sent by a PCI-compliant merchant with token: false; it is then
// checked like any card number. The message never repeats it. A full card number sent
// without token: false would be taken for a token and could travel on in clear, so a
// "token" that is a valid card number is refused.
function cardNumberRules(req: Obj, errors: FieldError[]): void {
  const pm = obj(req.paymentMethod);
  if (typeof pm?.cardNumber !== 'string' || pm.cardNumber === '') return;
  if (pm.token === false && !isCardNumber(pm.cardNumber)) {
    errors.push(fieldError('paymentMethod.cardNumber', 'ERR_MODEL_FORMAT', 'must be a valid card number (12 to 19 digits) when paymentMethod.token is false'));
  } else if (pm.token !== false && digitsSpacesHyphens(pm.cardNumber) && isCardNumber(pm.cardNumber.replace(/[ -]/g, ''))) {
    errors.push(fieldError('paymentMethod.cardNumber', 'ERR_MODEL_FORMAT', 'holds a full card number; send paymentMethod.token: false with it, or send the token from /v1/tokenize'));
  }
}

// The merchant's earlier attempts come before the decline it hands over: one after it is a
// mix-up of orders or clocks, and would be counted in the card's windows at the wrong time.
function priorAttemptRules(req: Obj, errors: FieldError[]): void {
  const tx = obj(req.transaction);
  const priors = tx?.priorAttempts;
  // A list past its bound is already an error; its items are not looked at one by one.
  if (typeof tx?.timestampUtc !== 'string' || !Array.isArray(priors) || priors.length > MAX_PRIOR_ATTEMPTS) return;
  const declinedAt = Date.parse(tx.timestampUtc);
  priors.forEach((p, i) => {
    const at = obj(p)?.timestampUtc;
    if (typeof at === 'string' && Date.parse(at) > declinedAt) {
      errors.push(fieldError(`transaction.priorAttempts[${i}].timestampUtc`, 'ERR_MODEL_RANGE', 'must not be after transaction.timestampUtc (an earlier attempt comes before the decline handed over)'));
    }
  });
}

function orderSourceRules(req: Obj, warnings: FieldError[]): void {
  const source = req.orderSource;
  if (typeof source === 'string' && !KNOWN_SOURCES.has(source)) {
    warnings.push({ field: 'orderSource', code: 'WARN_MODEL_UNKNOWN_ORDER_SOURCE', message: MODEL_WARNINGS.WARN_MODEL_UNKNOWN_ORDER_SOURCE.message });
  }
}

/** How far ahead of our clock a past event's time may be (api.clockSkewSeconds's default). */
export const DEFAULT_CLOCK_SKEW_MS = 300_000;

/** What "now" is for the rules about past events: the server's time and the skew allowed a merchant's clock. */
export interface RuleClock {
  now: Date;
  skewMs: number;
}

const FUTURE = 'ERR_MODEL_TIME_IN_FUTURE';

// A decline is a past event: a timestampUtc ahead of our clock by more than the skew is a
// mistake (a wrong time zone, a test value), and would count toward the card's 30-day network
// limits from a day that has not come yet. A birthdate is a date with no zone: it is refused
// only once it is after today everywhere (UTC+14, plus the skew).
function timeRules(req: Obj, clock: RuleClock, errors: FieldError[]): void {
  const latest = clock.now.getTime() + clock.skewMs;
  const at = obj(req.transaction)?.timestampUtc;
  if (typeof at === 'string' && isCanonicalDateTime(at) && Date.parse(at) > latest) {
    errors.push(fieldError('transaction.timestampUtc', FUTURE, `is in the future (more than ${clock.skewMs / 1000} s ahead of ${clock.now.toISOString()}): send the time of the decline, in UTC`));
  }
  const birthdate = obj(req.payer)?.birthdate;
  const today = new Date(latest + 14 * 3_600_000).toISOString().slice(0, 10);
  if (typeof birthdate === 'string' && isCanonicalDate(birthdate) && birthdate > today) {
    errors.push(fieldError('payer.birthdate', FUTURE, `is after today (${today})`));
  }
}

/** Cross-field rules of an evaluate request or batch entry (normalised input). */
export function checkEvaluateRules(input: unknown, mode: ModelMode, errors: FieldError[], warnings: FieldError[], clock: RuleClock = { now: new Date(), skewMs: DEFAULT_CLOCK_SKEW_MS }): void {
  const req = obj(input);
  if (!req) return;
  timeRules(req, clock, errors);
  mitRules(req, errors);
  payerRules(req, errors);
  stateRules(req, errors);
  amountRules(req, mode, errors);
  cardNumberRules(req, errors);
  priorAttemptRules(req, errors);
  orderSourceRules(req, warnings);
}
