// The request model's public API: schemas (for documentation), the types derived from
// them, the validators every input goes through, and the order statuses.
export { MODEL_ERRORS, MODEL_WARNINGS, type ModelErrorCode, type ModelWarningCode } from './codes.ts';
export {
  validateEvaluate, validateBatchEntry, validateBatchHeader, validateTokenize, validateTransmit,
  type Validation, type ModelOptions, type BatchEntryOptions,
} from './validate.ts';
export type { ModelMode } from './rules.ts';
export {
  EvaluateRequestSchema, BatchEntrySchema, BatchHeaderSchema, ORDER_SOURCES,
  type EvaluateRequest, type BatchEntry, type BatchHeader, type OrderSource,
} from './schemas/evaluate.ts';
export * from './schemas/objects.ts';
export { TokenizeRequestSchema, CreditCardSchema, type TokenizeRequest, type CreditCard } from './schemas/tokenize.ts';
export { TransmitRequestSchema, TRANSMIT_REQUIRED, type TransmitRequest, type Lenient } from './schemas/transmit.ts';
export {
  STATUSES, INITIAL_STATUSES, TRANSITIONS, isStatus, isFinal, canTransition, assertTransition,
  type Status, type CallKind,
} from './states.ts';
export { toUtcDateTime, toCalendarDate } from './dates.ts';
