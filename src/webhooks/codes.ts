// Codes of the webhook stage, merged into the catalogue by src/catalogue.ts. The delivery codes
// appear in `webhook_attempts.error` and `rescued webhooks list`; the URL codes are what
// `merchant set-webhook` answers.
import type { ErrorSpec } from '../error-types.ts';

export const WEBHOOK_ERRORS = {
  ERR_WEBHOOK_URL_UNSAFE: { status: 400, retryable: false, message: 'The webhook URL is not allowed: wrong scheme, or its host is (or resolves to) a private, loopback, link-local or otherwise non-public address.' },
  ERR_WEBHOOK_INVALID_INPUT: { status: 400, retryable: false, message: 'A webhooks command argument is invalid (an id, a time).' },
  ERR_WEBHOOK_NOT_FOUND: { status: 404, retryable: false, message: 'No such webhook delivery, event or endpoint.' },
  ERR_WEBHOOK_TIMEOUT: { status: 504, retryable: true, message: 'The receiver did not answer within the timeout; the delivery is retried.' },
  ERR_WEBHOOK_CONNECTION: { status: 502, retryable: true, message: 'The receiver could not be reached (DNS, connection or TLS failure); the delivery is retried.' },
} as const satisfies Record<string, ErrorSpec>;
