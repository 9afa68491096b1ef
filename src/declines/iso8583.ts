// ISO 8583 response codes (DE39): the default table, also fed the raw network code a gateway
// exposes (Stripe network_decline_code, Adyen refusalReasonRaw, Checkout.com
// partner_response_code, ...).
// Source: shared/reference/card-networks.md, "Common ISO 8583 response codes (DE39)" for the
// classes it lists; the other rows take the meaning the Visa category lists and the gateways'
// ISO columns give them (shared/reference/gateway-decline-codes.md §6), and a class consistent
// with their Visa category (1 → hard, 2 → soft, 3 → data, 4 → soft-generic).
import type { Row } from './reasons.ts';

export const ISO8583_CODES = {
  '01': ['call_issuer', 'soft-generic'], // refer to card issuer
  '02': ['call_issuer', 'soft-generic'], // refer to card issuer, special conditions
  '03': ['merchant_side', 'soft-temporary'], // invalid merchant: our set-up, alert operations
  '04': ['pickup_card', 'hard'],
  '05': ['do_not_honor', 'soft-generic'],
  '06': ['generic_decline', 'soft-generic'], // error
  '07': ['pickup_card', 'hard'], // pick up card, special conditions
  '12': ['transaction_not_permitted', 'hard'], // invalid transaction; Visa category 1
  '13': ['invalid_amount', 'soft-generic'], // check our amount first
  '14': ['invalid_card_number', 'hard'], // card-networks.md: hard; Visa category 1
  '15': ['invalid_account', 'hard'], // no such issuer; Visa category 1
  '19': ['processing_error', 'soft-temporary'], // re-enter transaction
  '33': ['expired_card', 'data'], // expired card, pick up (Checkout.com 30033)
  '34': ['suspected_fraud', 'hard'], // suspected fraud, pick up
  '41': ['lost_or_stolen', 'hard'],
  '43': ['lost_or_stolen', 'hard'],
  '46': ['closed_account', 'hard'],
  '51': ['insufficient_funds', 'soft-funds'],
  '54': ['expired_card', 'data'],
  '55': ['card_present_only', 'data'], // incorrect PIN
  '57': ['transaction_not_permitted', 'hard'], // not permitted to cardholder
  '58': ['merchant_side', 'soft-temporary'], // not permitted to terminal: our set-up
  // Visa puts 59 in category 2; card-networks.md: "often treated hard — be conservative".
  '59': ['suspected_fraud', 'hard'],
  '61': ['limit_exceeded', 'soft-funds'], // exceeds withdrawal amount limit
  '62': ['restricted_card', 'soft-generic'], // "soft, cautious"
  '63': ['security_violation', 'hard'],
  '65': ['limit_exceeded', 'soft-funds'], // exceeds withdrawal frequency limit
  '68': ['issuer_unavailable', 'soft-temporary'], // response received too late
  '75': ['card_present_only', 'data'], // PIN tries exceeded
  '78': ['card_not_activated', 'soft-generic'], // blocked, first use: the customer can activate
  '79': ['new_account_information', 'data'], // life cycle (Checkout.com 20179)
  '82': ['generic_decline', 'soft-generic'], // policy (Checkout.com 20182); Visa reads 82 as CVV, see visa.ts
  '83': ['security_violation', 'hard'], // security (Checkout.com 20183), conservative
  '86': ['card_present_only', 'data'], // cannot verify PIN
  '91': ['issuer_unavailable', 'soft-temporary'],
  '92': ['issuer_unavailable', 'soft-temporary'], // unable to route to the issuer
  '93': ['transaction_not_permitted', 'soft-generic'], // violation of law; Visa category 2
  '94': ['duplicate', 'soft-generic'], // look for the earlier success first
  '96': ['processing_error', 'soft-temporary'], // system malfunction
  '1A': ['authentication_required', 'data'], // CIT: challenge; MIT: stop
  '5C': ['transaction_not_permitted', 'soft-generic'], // Visa category 2
  '9G': ['restricted_card', 'soft-generic'], // blocked by cardholder; Visa category 2
  N3: ['transaction_not_permitted', 'soft-generic'], // cash service not available
  N4: ['limit_exceeded', 'soft-funds'], // cash request exceeds issuer limit
  N7: ['cvv_failure', 'data'],
  R0: ['stop_payment', 'hard'], // stop payment order
  R1: ['stop_payment', 'hard'], // revocation of authorization
  R3: ['stop_payment', 'hard'], // revocation of all authorizations
} as const satisfies Record<string, Row>;

/** "5" → "05", " n7 " → "N7"; anything else is returned trimmed and upper-cased. */
export function normaliseIsoCode(code: string): string {
  const c = code.trim().toUpperCase();
  return c.length === 1 && c >= '0' && c <= '9' ? `0${c}` : c;
}

/** A two-character DE39 value; "NA" (the spec's "not available") is not one. */
export function looksLikeIsoCode(code: string): boolean {
  const c = normaliseIsoCode(code);
  return c !== 'NA' && /^[0-9A-Z]{2}$/.test(c);
}

export function lookupIso(code: string): Row | undefined {
  return (ISO8583_CODES as Record<string, Row>)[normaliseIsoCode(code)];
}
