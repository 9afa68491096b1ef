// Codes of processor accounts and gateway calls, merged into the catalogue by src/catalogue.ts.
import type { ErrorSpec } from '../error-types.ts';

export const PROCESSOR_ERRORS = {
  ERR_PROCESSOR_ACCOUNT_INVALID: { status: 400, retryable: false, message: 'The processor account is invalid: its type, label or credentials (the fields are named, never their values).' },
  ERR_PROCESSOR_ACCOUNT_EXISTS: { status: 409, retryable: false, message: 'The merchant already has a processor account with this label.' },
  ERR_PROCESSOR_ACCOUNT_NOT_FOUND: { status: 404, retryable: false, message: 'The merchant has no processor account with this label.' },
  ERR_PROCESSOR_NO_ACCOUNT: { status: 422, retryable: false, message: 'No processor account of this merchant can charge this order: add one (rescued processor add), name one in additionalFields processorAccount, or mark one --default.' },
  ERR_PROCESSOR_CARD_NOT_ACCEPTED: { status: 422, retryable: false, message: 'The processor account cannot be sent card numbers: name the gateway\'s own payment method in additionalFields (processor.paymentMethod).' },
  ERR_PROCESSOR_GATEWAY_REJECTED: { status: 502, retryable: true, message: 'The gateway refused the call without judging the card (credentials, rate limit or a request it refused); the operator was alerted.' },
  ERR_PROCESSOR_ACCOUNT_TEST_MODE: { status: 400, retryable: false, message: 'Production mode refuses credentials of a gateway\'s test environment (a Stripe sk_test_ or rk_test_ key, an Adyen test account, Braintree or Authorize.Net sandbox keys): use the live ones.' },
  ERR_PROCESSOR_ACCOUNT_TEST_FAILED: { status: 502, retryable: true, message: 'rescued processor test: the gateway refused the test call or did not answer it (its HTTP status, the URL called and its own message are given).' },
} as const satisfies Record<string, ErrorSpec>;
