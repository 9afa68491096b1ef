// Codes of the request model: field-level validation errors (merged into the catalogue by
// src/catalogue.ts) and warnings, which describe something the service accepted but changed
// or ignored. Warnings are never errors, so they live in their own table.
import type { ErrorSpec } from '../error-types.ts';

export const MODEL_ERRORS = {
  ERR_MODEL_INVALID: { status: 400, retryable: false, message: 'The request failed validation; see errors[].' },
  ERR_MODEL_REQUIRED: { status: 400, retryable: false, message: 'A required field is missing or empty.' },
  ERR_MODEL_TYPE: { status: 400, retryable: false, message: 'A field has the wrong type.' },
  ERR_MODEL_FORMAT: { status: 400, retryable: false, message: 'A field does not have the expected format or is not a known code.' },
  ERR_MODEL_RANGE: { status: 400, retryable: false, message: 'A number is outside its allowed range.' },
  ERR_MODEL_TIME_IN_FUTURE: { status: 400, retryable: false, message: 'The time of a past event (transaction.timestampUtc, payer.birthdate) is in the future, beyond the allowed clock skew.' },
  ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER: { status: 400, retryable: false, message: 'An identifier (orderId, idempotencyKey, payer.id, …) holds a card number: identifiers are never masked, so the request or entry is refused.' },
  ERR_MODEL_ILLEGAL_TRANSITION: { status: 409, retryable: false, message: 'The order cannot move to that status from its current status.' },
} as const satisfies Record<string, ErrorSpec>;

export type ModelErrorCode = keyof typeof MODEL_ERRORS;

export const MODEL_WARNINGS = {
  WARN_MODEL_UNKNOWN_FIELD: { message: 'A field the interface does not define was ignored.' },
  WARN_MODEL_DUPLICATE_FIELD: { message: 'A field was sent under two spellings; the canonical spelling was kept.' },
  WARN_MODEL_UNKNOWN_ORDER_SOURCE: { message: 'orderSource is not one of ecommerce, terminal, vterminal, installment; it was kept as sent.' },
} as const satisfies Record<string, { message: string }>;

export type ModelWarningCode = keyof typeof MODEL_WARNINGS;
