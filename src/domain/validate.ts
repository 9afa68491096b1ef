// The public validators of the request model. Each one normalises (normalise.ts), runs the
// compiled schema (compiled once, here, at module load) and the cross-field rules
// (rules.ts), and answers either the canonical value or every problem at once, each as a
// FieldError; warnings travel separately in both cases. The input is never changed, and the
// value may share the objects that needed no normalising with it (the caller drops the
// parsed input anyway, so nothing is copied for nothing).
import type { ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import type { FieldError } from '../error-types.ts';
import { compile } from './formats.ts';
import { fromAjv } from './field-errors.ts';
import { leafCheck } from './checks.ts';
import { coercers, makeCheckingNormaliser, makeNormaliser, type ShapeOptions } from './normalise.ts';
import { INVALID } from './shape-code.ts';
import { checkEvaluateRules, DEFAULT_CLOCK_SKEW_MS, type ModelMode, type RuleClock } from './rules.ts';
import {
  BatchEntrySchema, BatchHeaderSchema, EvaluateRequestSchema,
  type BatchEntry, type BatchHeader, type EvaluateRequest, type OrderSource,
} from './schemas/evaluate.ts';
import { TokenizeRequestSchema, type TokenizeRequest } from './schemas/tokenize.ts';
import { leniently } from './transmit.ts';
import { cardSafeRequest, scrubFieldErrors } from './card-data.ts';
import type { TransmitRequest } from './schemas/transmit.ts';

export type Validation<T> =
  | { ok: true; value: T; warnings: FieldError[] }
  | { ok: false; errors: FieldError[]; warnings: FieldError[] };

export interface ModelOptions {
  /** sandbox adds the test-call bound: transaction.amount greater than 10 cents. */
  mode: ModelMode;
  /** The server's time, for the times of past events (default: the system clock). */
  now?: Date;
  /** How far ahead of `now` such a time may be (api.clockSkewSeconds; default 5 minutes). */
  clockSkewMs?: number;
}

const ruleClock = (opts: ModelOptions): RuleClock => ({ now: opts.now ?? new Date(), skewMs: opts.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS });

export interface BatchEntryOptions extends ModelOptions {
  /** The header's expiryDateUtc (already validated); applies where an entry has none. */
  defaultExpiryDateUtc?: string;
}

const DEFAULT_ORDER_SOURCE: OrderSource = 'ecommerce';

const EVALUATE_SHAPE: ShapeOptions = {
  aliases: { isDecline: 'isDeclined' },
  coerce: {
    sequenceNumber: coercers.integer,
    expiryDateUtc: coercers.dateTime,
    orderSource: coercers.lowerCase,
    'transaction.timestampUtc': coercers.dateTime,
    'transaction.currency': coercers.code,
    'transaction.merchantAdviceCode': coercers.adviceCode,
    'transaction.priorAttempts[].timestampUtc': coercers.dateTime,
    'transaction.priorAttempts[].merchantAdviceCode': coercers.adviceCode,
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
};
const HEADER_SHAPE: ShapeOptions = {
  ignoreTopLevel: ['requests'],
  coerce: { expiryDateUtc: coercers.dateTime, authorizationToken: coercers.bearer },
};
const TOKENIZE_SHAPE: ShapeOptions = { coerce: { 'payment_method.credit_card.number': coercers.digitsOnly } };

export const evaluateValidator: ValidateFunction<EvaluateRequest> = compile(EvaluateRequestSchema);
export const batchEntryValidator: ValidateFunction<BatchEntry> = compile(BatchEntrySchema);

type Normaliser = (input: unknown, warnings: FieldError[]) => unknown;

// One input's model: the checking normaliser answers valid inputs in one walk; an input
// it calls INVALID is normalised again and run through Ajv with allErrors, which lists
// every problem (that walk costs only on failure).
interface Model {
  readonly check: Normaliser;
  readonly normalise: Normaliser;
  readonly validator: ValidateFunction;
}

function model(schema: TSchema, shape: ShapeOptions, validator: ValidateFunction): Model {
  return { check: makeCheckingNormaliser(schema, shape), normalise: makeNormaliser(schema, shape), validator };
}

const EVALUATE = model(EvaluateRequestSchema, EVALUATE_SHAPE, evaluateValidator);
const BATCH_ENTRY = model(BatchEntrySchema, EVALUATE_SHAPE, batchEntryValidator);
const HEADER = model(BatchHeaderSchema, HEADER_SHAPE, compile<BatchHeader>(BatchHeaderSchema));
const TOKENIZE = model(TokenizeRequestSchema, TOKENIZE_SHAPE, compile<TokenizeRequest>(TokenizeRequestSchema));

// The batch default must satisfy the field it fills, as Ajv would check it after the fact.
const expiryValid = leafCheck(EvaluateRequestSchema.properties.expiryDateUtc, 'expiryDateUtc');

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

// The value, normalised, defaulted and known to satisfy the schema; undefined when Ajv
// must look at it. A default that does not satisfy its field is left for Ajv to report.
function checkedValue(input: unknown, m: Model, defaultExpiry: string | undefined, warnings: FieldError[]): unknown {
  const checked = m.check(input, warnings);
  if (checked === INVALID) return undefined;
  const fills = defaultExpiry !== undefined && (checked as Record<string, unknown>).expiryDateUtc === undefined;
  return fills && !expiryValid(defaultExpiry) ? undefined : withDefaults(input, checked, defaultExpiry);
}

// Ajv's verdict, with every problem, on the normalised value.
function validated(value: unknown, m: Model, errors: FieldError[]): unknown {
  if (!m.validator(value)) fromAjv(m.validator.errors, errors);
  return value;
}

function checkEvaluate(input: unknown, m: Model, opts: ModelOptions, defaultExpiry?: string): Checked {
  let warnings: FieldError[] = [];
  const errors: FieldError[] = [];
  let value = checkedValue(input, m, defaultExpiry, warnings);
  if (value === undefined) {
    warnings = [];
    value = validated(withDefaults(input, m.normalise(input, warnings), defaultExpiry), m, errors);
  }
  checkEvaluateRules(value, opts.mode, errors, warnings, ruleClock(opts));
  return { value, errors, warnings };
}

function answer<T>(c: Checked): Validation<T> {
  return c.errors.length === 0
    ? { ok: true, value: c.value as T, warnings: c.warnings }
    : { ok: false, errors: c.errors, warnings: c.warnings };
}

/**
 * The request model's verdict made card-safe (card-data.ts): an identifier holding a card
 * number is an error, and the value, errors and warnings are scrubbed, ready to be stored.
 */
function withCardSafety(c: Checked): Checked {
  const safe = cardSafeRequest(c.value);
  return { value: safe.value, errors: safe.errors.length === 0 ? c.errors : [...c.errors, ...safe.errors], warnings: c.warnings };
}

function cardSafe<T>(c: Checked): Validation<T> {
  const warnings = scrubFieldErrors(c.warnings);
  return c.errors.length === 0 ? { ok: true, value: c.value as T, warnings } : { ok: false, errors: scrubFieldErrors(c.errors), warnings };
}

function checkSimple(input: unknown, m: Model): Checked {
  const warnings: FieldError[] = [];
  const value = m.check(input, warnings);
  if (value !== INVALID) return { value, errors: [], warnings };
  const errors: FieldError[] = [];
  return { value: validated(m.normalise(input, warnings), m, errors), errors, warnings };
}

/** POST /v1/evaluate body: a CIT or MIT evaluate request. */
export function validateEvaluate(input: unknown, opts: ModelOptions): Validation<EvaluateRequest> {
  return cardSafe(withCardSafety(checkEvaluate(input, EVALUATE, opts)));
}

/** One entry of a batch file's `requests`: an evaluate request with sequenceNumber. */
export function validateBatchEntry(input: unknown, opts: BatchEntryOptions): Validation<BatchEntry> {
  return cardSafe(withCardSafety(checkEvaluate(input, BATCH_ENTRY, opts, opts.defaultExpiryDateUtc)));
}

/** The batch file header (mid, authorizationToken, expiryDateUtc); `requests` is ignored. */
export function validateBatchHeader(input: unknown): Validation<BatchHeader> {
  return answer(checkSimple(input, HEADER));
}

/** POST /v1/tokenize body. */
export function validateTokenize(input: unknown): Validation<TokenizeRequest> {
  return answer(checkSimple(input, TOKENIZE));
}

/**
 * POST /v1/transmit body: the evaluate model, leniently (DESIGN.md §2 "Transmit input"):
 * only orderId, transaction and payer must be present and well-formed. Any other problem
 * becomes a warning and its field is left out of the value; absent fields are fine.
 */
export function validateTransmit(input: unknown, opts: ModelOptions): Validation<TransmitRequest> {
  return cardSafe(leniently(withCardSafety(checkEvaluate(input, EVALUATE, opts))));
}
