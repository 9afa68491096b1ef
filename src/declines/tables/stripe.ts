// Stripe `decline_code` values and `outcome.advice_code`.
// Source: shared/reference/gateway-decline-codes.md §1, from https://docs.stripe.com/declines/codes
// (copy dated 2026-07-14), .../billing/revenue-recovery/smart-retries#non-retryable-decline-codes
// and .../declines/card#retrying-issuer-declines. Stripe publishes no per-code ISO mapping.
import type { Row } from '../reasons.ts';
import { matchOf, type DeclineTable } from '../table.ts';

export const STRIPE_CODES = {
  insufficient_funds: ['insufficient_funds', 'soft-funds'],
  card_velocity_exceeded: ['limit_exceeded', 'soft-funds'],
  withdrawal_count_limit_exceeded: ['limit_exceeded', 'soft-funds'],
  invalid_amount: ['invalid_amount', 'soft-generic'], // check our amount; if valid, a limit
  do_not_honor: ['do_not_honor', 'soft-generic'],
  generic_decline: ['generic_decline', 'soft-generic'], // also Radar blocks
  call_issuer: ['call_issuer', 'soft-generic'],
  approve_with_id: ['call_issuer', 'soft-generic'], // Stripe: retry, then contact issuer
  no_action_taken: ['generic_decline', 'soft-generic'],
  duplicate_transaction: ['duplicate', 'soft-generic'], // look for the earlier success first
  issuer_not_available: ['issuer_unavailable', 'soft-temporary'],
  processing_error: ['processing_error', 'soft-temporary'],
  reenter_transaction: ['processing_error', 'soft-temporary'],
  try_again_later: ['try_again_later', 'soft-temporary'], // deprecated: now an advice_code
  expired_card: ['expired_card', 'data'],
  incorrect_cvc: ['cvv_failure', 'data'],
  invalid_cvc: ['cvv_failure', 'data'],
  incorrect_zip: ['avs_failure', 'data'],
  incorrect_address: ['avs_failure', 'data'],
  incorrect_number: ['invalid_card_number', 'data'], // Stripe non-retryable
  invalid_number: ['invalid_card_number', 'data'],
  invalid_expiry_month: ['invalid_expiry', 'data'],
  invalid_expiry_year: ['invalid_expiry', 'data'],
  new_account_information_available: ['new_account_information', 'data'],
  authentication_required: ['authentication_required', 'data'], // needs the customer on-session
  authentication_not_handled: ['authentication_required', 'data'],
  lost_card: ['lost_or_stolen', 'hard'],
  stolen_card: ['lost_or_stolen', 'hard'],
  pickup_card: ['pickup_card', 'hard'],
  fraudulent: ['suspected_fraud', 'hard'], // not on Stripe's non-retryable list; conservative
  merchant_blacklist: ['merchant_side', 'hard'], // our own Radar block list
  highest_risk_level: ['suspected_fraud', 'hard'], // Radar: highest risk
  // "possibly lost or stolen" at Stripe; Adyen and Checkout.com use "restricted" more softly.
  restricted_card: ['restricted_card', 'hard'],
  revocation_of_authorization: ['stop_payment', 'hard'], // R1 by name
  revocation_of_all_authorizations: ['stop_payment', 'hard'], // R3 by name
  stop_payment_order: ['stop_payment', 'hard'], // R0 by name
  transaction_not_allowed: ['transaction_not_permitted', 'hard'],
  not_permitted: ['transaction_not_permitted', 'hard'],
  service_not_allowed: ['transaction_not_permitted', 'hard'],
  security_violation: ['security_violation', 'hard'],
  invalid_account: ['invalid_account', 'hard'], // a new card is needed
  do_not_try_again: ['do_not_retry', 'hard'], // deprecated: now an advice_code
  card_not_supported: ['card_not_supported', 'hard'],
  currency_not_supported: ['card_not_supported', 'hard'],
  testmode_decline: ['card_not_supported', 'hard'], // a test card used live
  incorrect_pin: ['card_present_only', 'data'],
  invalid_pin: ['card_present_only', 'data'],
  offline_pin_required: ['card_present_only', 'data'],
  online_or_offline_pin_required: ['card_present_only', 'data'],
  pin_try_exceeded: ['card_present_only', 'data'],
  mobile_device_authentication_required: ['card_present_only', 'data'],
} as const satisfies Record<string, Row>;

/** `outcome.advice_code`: the issuer's advice, which overrides the decline code. */
export const STRIPE_ADVICE_CODES = {
  try_again_later: ['try_again_later', 'soft-temporary'],
  do_not_try_again: ['do_not_retry', 'hard'],
  confirm_card_data: ['new_account_information', 'data'],
} as const satisfies Record<string, Row>;

/**
 * Past 15 Visa retries Stripe blocks the charge itself: `generic_decline` with
 * `outcome.reason` = previously_declined_do_not_retry, which is hard.
 */
export const STRIPE_BLOCKED_OUTCOME = 'previously_declined_do_not_retry';

const key = (code: string) => code.trim().toLowerCase().replace(/[\s-]+/g, '_');

export function lookupStripe(code: string): Row | undefined {
  return (STRIPE_CODES as Record<string, Row>)[key(code)];
}

export function lookupStripeAdvice(code: string): Row | undefined {
  return (STRIPE_ADVICE_CODES as Record<string, Row>)[key(code)];
}

export const table: DeclineTable = {
  name: 'stripe',
  aliases: [],
  lookup(code) {
    const row = lookupStripe(code);
    return row && matchOf(row);
  },
};
