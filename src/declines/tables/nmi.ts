// NMI (Network Merchants) Direct Post `response_code` result codes.
// Source: shared/reference/gateway-decline-codes.md §4, from the NMI Payment API result code
// table (integration portal), reproduced identically by docs.paymentplatform.dev and NMI
// client libraries. No ISO mapping is published.
import type { Row } from '../reasons.ts';
import { matchOf, type DeclineTable } from '../table.ts';

export const NMI_CODES = {
  '200': ['generic_decline', 'soft-generic'], // declined by processor: parse responsetext
  '201': ['do_not_honor', 'soft-generic'],
  '202': ['insufficient_funds', 'soft-funds'],
  '203': ['limit_exceeded', 'soft-funds'], // over limit
  '204': ['transaction_not_permitted', 'hard'],
  '220': ['invalid_card_number', 'data'], // incorrect payment information
  '221': ['invalid_card_number', 'data'], // no such card issuer: number probably wrong
  '222': ['invalid_card_number', 'data'], // no card number on file with issuer
  '223': ['expired_card', 'data'],
  '224': ['invalid_expiry', 'data'],
  '225': ['cvv_failure', 'data'],
  '226': ['card_present_only', 'data'], // invalid PIN
  '240': ['call_issuer', 'soft-generic'], // referral
  '250': ['pickup_card', 'hard'],
  '251': ['lost_or_stolen', 'hard'],
  '252': ['lost_or_stolen', 'hard'],
  '253': ['suspected_fraud', 'hard'], // fraudulent card
  '260': ['generic_decline', 'soft-generic'], // instructions in responsetext
  '261': ['stop_payment', 'hard'], // stop all recurring payments
  '262': ['stop_payment', 'hard'], // stop this recurring program
  '263': ['new_account_information', 'data'],
  '264': ['try_again_later', 'soft-generic'], // retry in a few days: see NMI_RETRY_AFTER_HOURS
  '300': ['generic_decline', 'soft-generic'], // rejected by gateway: our rules or spent token
  '400': ['processing_error', 'soft-temporary'],
  '410': ['merchant_side', 'soft-temporary'], // invalid merchant configuration
  '411': ['merchant_side', 'soft-temporary'], // merchant account inactive
  '420': ['processing_error', 'soft-temporary'], // outcome unknown: check before retrying
  '421': ['issuer_unavailable', 'soft-temporary'], // communication error with issuer
  '430': ['duplicate', 'soft-generic'], // look for the earlier success first
  '440': ['merchant_side', 'soft-temporary'], // processor format error
  '441': ['merchant_side', 'soft-temporary'], // invalid transaction information
  '460': ['merchant_side', 'soft-temporary'], // processor feature not available
  '461': ['card_not_supported', 'hard'],
} as const satisfies Record<string, Row>;

/** NMI 264 says "retry in a few days": wait days, not hours. "A few" is taken as three. */
export const NMI_RETRY_AFTER_HOURS = { '264': 72 } as const satisfies Record<string, number>;

export function lookupNmi(code: string): Row | undefined {
  return (NMI_CODES as Record<string, Row>)[code.trim()];
}

export const table: DeclineTable = {
  name: 'nmi',
  aliases: ['networkmerchants'],
  lookup(code) {
    const row = lookupNmi(code);
    return row && matchOf(row);
  },
};
