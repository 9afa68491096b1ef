// The public validators of the request model. Each one normalises (normalise.ts), runs the
// compiled schema (compiled once, here, at module load) and the cross-field rules
// (rules.ts), and answers either the canonical value or every problem at once, each as a
// FieldError; warnings travel separately in both cases. The input is never changed, and the
// value may share the objects that needed no normalising with it (the caller drops the
// parsed input anyway, so nothing is copied for nothing).
import type { ValidateFunction } from 'ajv';
import type { FieldError } from '../error-types.ts';
import { compile } from './formats.ts';
import { fromAjv } from './field-errors.ts';
import { coercers, makeNormaliser } from './normalise.ts';
import { checkEvaluateRules, type ModelMode } from './rules.ts';
import {
  BatchEntrySchema, BatchHeaderSchema, EvaluateRequestSchema,
  type BatchEntry, type BatchHeader, type EvaluateRequest, type OrderSource,
} from './schemas/evaluate.ts';
import { TokenizeRequestSchema, type TokenizeRequest } from './schemas/tokenize.ts';
import { leniently } from './transmit.ts';
import type { TransmitRequest } from './schemas/transmit.ts';

export type Validation<T> =
  | { ok: true; value: T; warnings: FieldError[] }
  | { ok: false; errors: FieldError[]; warnings: FieldError[] };

export interface ModelOptions {
  /** sandbox adds the test-call bound: transaction.amount greater than 10 cents. */
  mode: ModelMode;
}

export interface BatchEntryOptions extends ModelOptions {
  /** The header's expiryDateUtc (already validated); applies where an entry has none. */
  defaultExpiryDateUtc?: string;
}

const DEFAULT_ORDER_SOURCE: OrderSource = 'ecommerce';

const normaliseEvaluate = makeNormaliser(EvaluateRequestSchema, {
  aliases: { isDecline: 'isDeclined' },
  coerce: {
    sequenceNumber: coercers.integer,
    expiryDateUtc: coercers.dateTime,
    orderSource: coercers.lowerCase,
    'transaction.timestampUtc': coercers.dateTime,
    'transaction.currency': coercers.code,
    'payer.birthdate': coercers.date,
    'billingInformation.countryCode': coercers.code,
    'billingInformation.state': coercers.code,
    'shippingInformation.countryCode': coercers.code,
    'shippingInformation.state': coercers.code,
    'paymentMethod.cardCountry': coercers.country,
    'subscription.price': coercers.integer,
    'subscription.currency': coercers.code,
    'orderItems[].quantity': coercers.integer,
  },
});

const normaliseHeader = makeNormaliser(BatchHeaderSchema, {
  ignoreTopLevel: ['requests'],
  coerce: { expiryDateUtc: coercers.dateTime, authorizationToken: coercers.bearer },
});

const normaliseTokenize = makeNormaliser(TokenizeRequestSchema, {
  coerce: { 'payment_method.credit_card.number': coercers.digitsOnly },
});

export const evaluateValidator: ValidateFunction<EvaluateRequest> = compile(EvaluateRequestSchema);
export const batchEntryValidator: ValidateFunction<BatchEntry> = compile(BatchEntrySchema);
const headerValidator: ValidateFunction<BatchHeader> = compile(BatchHeaderSchema);
const tokenizeValidator: ValidateFunction<TokenizeRequest> = compile(TokenizeRequestSchema);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The batch default applies before the MIT rule, so an entry relying on it passes. The
// normaliser may hand back the input itself; it is copied before a default is added.
function withDefaults(input: unknown, value: unknown, defaultExpiry: string | undefined): unknown {
  if (!isObject(value)) return value;
  const expiry = value.expiryDateUtc === undefined && defaultExpiry !== undefined;
  // The spec's default for an orderSource not given; an empty one is not given either.
  const source = value.orderSource === undefined || value.orderSource === '';
  if (!expiry && !source) return value;
  const out = value === input ? { ...value } : value;
  if (expiry) out.expiryDateUtc = defaultExpiry;
  if (source) out.orderSource = DEFAULT_ORDER_SOURCE;
  return out;
}

interface Checked {
  value: unknown;
  errors: FieldError[];
  warnings: FieldError[];
}

function checkEvaluate(input: unknown, validator: ValidateFunction, mode: ModelMode, defaultExpiry?: string): Checked {
  const warnings: FieldError[] = [];
  const errors: FieldError[] = [];
  const value = withDefaults(input, normaliseEvaluate(input, warnings), defaultExpiry);
  if (!validator(value)) fromAjv(validator.errors, errors);
  checkEvaluateRules(value, mode, errors, warnings);
  return { value, errors, warnings };
}

function answer<T>(c: Checked): Validation<T> {
  return c.errors.length === 0
    ? { ok: true, value: c.value as T, warnings: c.warnings }
    : { ok: false, errors: c.errors, warnings: c.warnings };
}

function checkSimple(input: unknown, normalise: typeof normaliseHeader, validator: ValidateFunction): Checked {
  const warnings: FieldError[] = [];
  const errors: FieldError[] = [];
  const value = normalise(input, warnings);
  if (!validator(value)) fromAjv(validator.errors, errors);
  return { value, errors, warnings };
}

/** POST /v1/evaluate body: a CIT or MIT evaluate request. */
export function validateEvaluate(input: unknown, opts: ModelOptions): Validation<EvaluateRequest> {
  return answer(checkEvaluate(input, evaluateValidator, opts.mode));
}

/** One entry of a batch file's `requests`: an evaluate request with sequenceNumber. */
export function validateBatchEntry(input: unknown, opts: BatchEntryOptions): Validation<BatchEntry> {
  return answer(checkEvaluate(input, batchEntryValidator, opts.mode, opts.defaultExpiryDateUtc));
}

/** The batch file header (mid, authorizationToken, expiryDateUtc); `requests` is ignored. */
export function validateBatchHeader(input: unknown): Validation<BatchHeader> {
  return answer(checkSimple(input, normaliseHeader, headerValidator));
}

/** POST /v1/tokenize body. */
export function validateTokenize(input: unknown): Validation<TokenizeRequest> {
  return answer(checkSimple(input, normaliseTokenize, tokenizeValidator));
}

/**
 * POST /v1/transmit body: the evaluate model, leniently (DESIGN.md §2 "Transmit input"):
 * only orderId, transaction and payer must be present and well-formed. Any other problem
 * becomes a warning and its field is left out of the value; absent fields are fine.
 */
export function validateTransmit(input: unknown, opts: ModelOptions): Validation<TransmitRequest> {
  return answer(leniently(checkEvaluate(input, evaluateValidator, opts.mode)));
}
