// Codes of the merchant API (evaluate, challenge, transmit, outcome, orders, refund, cancel),
// merged into the catalogue by src/catalogue.ts. Validation problems keep the request model's
// ERR_MODEL_* codes; these are the API's own decisions.
import type { ErrorSpec } from '../error-types.ts';

export const API_ERRORS = {
  ERR_API_NOT_DECLINED: { status: 400, retryable: false, message: 'Only declined transactions can be evaluated (isDeclined: true).' },
  ERR_API_MERCHANT_MISMATCH: { status: 403, retryable: false, message: 'The request names a mid or siteId that is not the calling merchant\'s.' },
  ERR_API_DUPLICATE_ORDER_ID: { status: 409, retryable: false, message: 'This orderId was already used by another order of this merchant.' },
  ERR_API_IDEMPOTENCY_IN_FLIGHT: { status: 409, retryable: true, message: 'A request with this idempotencyKey is still being processed; retry shortly.' },
  ERR_API_IDEMPOTENCY_MISMATCH: { status: 422, retryable: false, message: 'This idempotencyKey was already used with a different request body.' },
  ERR_API_RATE_LIMITED: { status: 429, retryable: true, message: 'Too many requests for this merchant; retry after the time in Retry-After.' },
  ERR_API_CHALLENGE_CLOSED: { status: 409, retryable: false, message: 'The order is not waiting for a challenge to be completed.' },
  ERR_API_CHALLENGE_EXPIRED: { status: 409, retryable: false, message: 'The challenge was not completed in time; the order has expired.' },
  ERR_API_CHALLENGE_BUSY: { status: 409, retryable: true, message: 'Another completion of this challenge is in progress.' },
  ERR_API_NOT_REFUNDABLE: { status: 409, retryable: false, message: 'Only an APPROVED order with a captured charge can be refunded.' },
  ERR_API_REFUND_EXCEEDS_CAPTURED: { status: 422, retryable: false, message: 'The refunds of an order cannot exceed the captured amount in total.' },
  ERR_API_REFUND_DECLINED: { status: 422, retryable: false, message: 'The processor refused the refund.' },
  ERR_API_PROCESSOR_UNAVAILABLE: { status: 503, retryable: true, message: 'The payment processor could not be reached; retry later.' },
  ERR_API_TRANSMIT_BUSY: { status: 503, retryable: true, message: 'Too many transmit records are waiting to be stored; retry later.' },
  ERR_API_ORDER_CLOSED: { status: 409, retryable: false, message: 'The order is final (or not an MIT order the engine charges): its card can no longer be updated.' },
  ERR_API_CARD_ALREADY_USED: { status: 422, retryable: false, message: 'The card sent as an update was already charged for this order; an updated card must be another card.' },
  ERR_API_BAD_CURSOR: { status: 400, retryable: false, message: 'The cursor is not the nextCursor of a previous page of this listing.' },
} as const satisfies Record<string, ErrorSpec>;
