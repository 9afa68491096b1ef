// Braintree processor response codes and gateway rejection reasons.
// Source: shared/reference/gateway-decline-codes.md §2, from
// https://developer.paypal.com/braintree/docs/reference/general/processor-responses/authorization-responses
// (updated 2026-06-22), which labels each code Soft or Hard; our class is noted where it
// differs (data: the customer can fix it). No ISO mapping is published.
import type { Row } from '../reasons.ts';
import { matchOf, type DeclineTable } from '../table.ts';

export const BRAINTREE_CODES = {
  '2000': ['do_not_honor', 'soft-generic'],
  '2001': ['insufficient_funds', 'soft-funds'],
  '2002': ['limit_exceeded', 'soft-funds'],
  '2003': ['limit_exceeded', 'soft-funds'],
  '2004': ['expired_card', 'data'], // BT Hard
  '2005': ['invalid_card_number', 'data'], // BT Hard: never with the same card data
  '2006': ['invalid_expiry', 'data'],
  '2007': ['invalid_account', 'hard'], // no such account at issuer
  '2008': ['invalid_card_number', 'data'], // wrong card-number length
  '2009': ['invalid_account', 'hard'], // no such issuer; Mastercard: no retry
  '2010': ['cvv_failure', 'data'],
  '2011': ['call_issuer', 'hard'], // voice authorization: not feasible online
  '2012': ['lost_or_stolen', 'hard'], // Mastercard: no retry
  '2013': ['lost_or_stolen', 'hard'],
  '2014': ['suspected_fraud', 'hard'],
  '2015': ['transaction_not_permitted', 'hard'],
  '2016': ['duplicate', 'soft-generic'], // look for the earlier success first
  '2017': ['stop_payment', 'hard'], // cardholder stopped this billing
  '2018': ['stop_payment', 'hard'], // cardholder stopped all billing
  '2019': ['transaction_not_permitted', 'hard'], // Mastercard: no retry
  '2020': ['security_violation', 'hard'],
  '2021': ['security_violation', 'hard'],
  '2022': ['new_account_information', 'data'], // Mastercard: no retry
  '2023': ['card_not_supported', 'hard'], // feature not enabled for us: merchant-side
  '2024': ['card_not_supported', 'hard'], // card type not enabled for us: merchant-side
  '2025': ['merchant_side', 'soft-temporary'],
  '2026': ['merchant_side', 'soft-temporary'],
  '2034': ['generic_decline', 'soft-temporary'], // no action taken
  '2038': ['generic_decline', 'soft-generic'], // Processor Declined
  '2040': ['merchant_side', 'soft-temporary'],
  '2041': ['call_issuer', 'hard'], // referral
  '2042': ['merchant_side', 'soft-temporary'],
  '2043': ['do_not_retry', 'hard'], // error, do not retry, call issuer
  '2044': ['call_issuer', 'hard'], // BT allows a retry after the customer calls
  '2046': ['generic_decline', 'soft-generic'],
  '2047': ['pickup_card', 'hard'], // Mastercard: no retry
  '2048': ['invalid_amount', 'soft-generic'],
  '2053': ['lost_or_stolen', 'hard'], // Mastercard: no retry
  '2057': ['restricted_card', 'soft-generic'], // issuer or cardholder restriction
  '2059': ['avs_failure', 'data'],
  '2060': ['avs_failure', 'data'], // AVS and CVV failed
  '2099': ['authentication_required', 'data'], // 3DS required (BT Soft)
  '2101': ['card_present_only', 'data'], // chip required
  '2104': ['generic_decline', 'soft-generic'], // offline issuer decline
  '2105': ['new_account_information', 'data'], // life cycle: invalid card data
  '2106': ['generic_decline', 'soft-generic'], // policy
  '2107': ['card_not_activated', 'soft-generic'], // BT Hard; Visa lists 78 in category 2
  '2108': ['closed_account', 'hard'],
  '3000': ['issuer_unavailable', 'soft-temporary'], // processor network unavailable
} as const satisfies Record<string, Row>;

/** Gateway rejections: our own AVS/CVV, duplicate and risk rules, not a bank decline. */
export const BRAINTREE_GATEWAY_REJECTIONS = {
  avs: ['avs_failure', 'data'],
  cvv: ['cvv_failure', 'data'],
  avs_and_cvv: ['avs_failure', 'data'],
  duplicate: ['duplicate', 'soft-generic'],
  // The SDK's GatewayRejectionReason.ThreeDSecure: the issuer wants the payer authenticated.
  three_d_secure: ['authentication_required', 'data'],
  fraud: ['merchant_side', 'hard'],
  risk_threshold: ['merchant_side', 'hard'],
  token_issuance: ['merchant_side', 'soft-temporary'],
  application_incomplete: ['merchant_side', 'soft-temporary'],
} as const satisfies Record<string, Row>;

const PROCESSOR_DECLINED: Row = ['generic_decline', 'soft-generic'];

export function lookupBraintree(code: string): Row | undefined {
  const c = code.trim().toLowerCase();
  const row = (BRAINTREE_CODES as Record<string, Row>)[c] ?? (BRAINTREE_GATEWAY_REJECTIONS as Record<string, Row>)[c];
  if (row) return row;
  // 2109–2999: "Processor Declined", BT Soft.
  const n = /^\d{4}$/.test(c) ? Number(c) : NaN;
  return n >= 2109 && n <= 2999 ? PROCESSOR_DECLINED : undefined;
}

export const table: DeclineTable = {
  name: 'braintree',
  aliases: ['braintreegateway', 'paypalbraintree'],
  lookup(code) {
    const row = lookupBraintree(code);
    return row && matchOf(row);
  },
};
