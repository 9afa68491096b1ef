// Adyen refusal reasons (`refusalReasonCode` with its `refusalReason` text).
// Source: shared/reference/gateway-decline-codes.md §3, from
// https://docs.adyen.com/development-resources/refusal-reasons (copy dated 2026-07-14; same
// list in the `adyen` Rust crate's RefusalReason). Adyen publishes no per-reason ISO mapping;
// the raw scheme code comes in additionalData.refusalReasonRaw (pass it as networkCode).
import type { CanonicalReason, Row, TableClass } from '../reasons.ts';
import { matchOf, type DeclineTable } from '../table.ts';

type AdyenRow = readonly [reason: CanonicalReason, cls: TableClass, refusalReason: string];

export const ADYEN_CODES = {
  '2': ['generic_decline', 'soft-generic', 'Refused'],
  '3': ['call_issuer', 'soft-generic', 'Referral'], // voice referral impossible for MIT
  '4': ['processing_error', 'soft-temporary', 'Acquirer Error'],
  '5': ['blocked_card', 'hard', 'Blocked Card'],
  '6': ['expired_card', 'data', 'Expired Card'],
  '7': ['invalid_amount', 'soft-generic', 'Invalid Amount'],
  '8': ['invalid_card_number', 'data', 'Invalid Card Number'],
  '9': ['issuer_unavailable', 'soft-temporary', 'Issuer Unavailable'],
  '10': ['card_not_supported', 'hard', 'Not supported'],
  '11': ['authentication_required', 'data', '3D Not Authenticated'],
  '12': ['insufficient_funds', 'soft-funds', 'Not enough balance'],
  '14': ['suspected_fraud', 'hard', 'Acquirer Fraud'],
  '15': ['cancelled', 'soft-generic', 'Cancelled'], // not an issuer answer; investigate
  '16': ['cancelled', 'data', 'Shopper Cancelled'], // needs the shopper
  '20': ['merchant_side', 'hard', 'FRAUD'], // our risk rules, score ≥ 100 before auth
  '21': ['processing_error', 'soft-temporary', 'Not Submitted'],
  '22': ['merchant_side', 'hard', 'FRAUD-CANCELLED'], // our risk rules, pre + post auth
  '23': ['transaction_not_permitted', 'hard', 'Transaction Not Permitted'],
  '24': ['cvv_failure', 'data', 'CVC Declined'],
  // Restricted e.g. by country; Stripe treats restricted_card as hard (sources conflict).
  '25': ['restricted_card', 'soft-generic', 'Restricted Card'],
  '26': ['stop_payment', 'hard', 'Revocation Of Auth'],
  '27': ['generic_decline', 'soft-generic', 'Declined Non Generic'], // read refusalReasonRaw
  '28': ['limit_exceeded', 'soft-funds', 'Withdrawal amount exceeded'],
  '29': ['limit_exceeded', 'soft-funds', 'Withdrawal count exceeded'],
  '31': ['suspected_fraud', 'hard', 'Issuer Suspected Fraud'], // conservative; Visa: 59 is category 2
  '32': ['avs_failure', 'data', 'AVS Declined'],
  '34': ['invalid_account', 'hard', 'No checking account available on Card'],
  '35': ['invalid_account', 'hard', 'No savings account available on Card'],
  '38': ['authentication_required', 'data', 'Authentication required'], // SCA exemption refused
  '39': ['processing_error', 'soft-temporary', 'RReq not received from DS'], // redo 3DS
  '42': ['authentication_required', 'data', '3DS Authentication Error'],
  '46': ['excessive_retries', 'hard', 'Blocked by Adyen to prevent excessive retry fees'],
  '50': ['stop_payment', 'hard', 'Token Revoked'], // (unverified) shopper disabled the token
  // PIN, chip, contactless and terminal conditions: card-present only. The reference gives
  // no names for these, so they are matched by code alone.
  '17': ['card_present_only', 'data', ''],
  '18': ['card_present_only', 'data', ''],
  '19': ['card_present_only', 'data', ''],
  '33': ['card_present_only', 'data', ''],
  '36': ['card_present_only', 'data', ''],
  '37': ['card_present_only', 'data', ''],
  '40': ['card_present_only', 'data', ''],
  '41': ['card_present_only', 'data', ''],
  '43': ['card_present_only', 'data', ''],
  '44': ['card_present_only', 'data', ''],
  '45': ['card_present_only', 'data', ''],
} as const satisfies Record<string, AdyenRow>;

const nameKey = (s: string) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

// Some integrations pass the refusalReason text instead of the numeric code.
const BY_NAME = new Map<string, Row>(
  Object.values(ADYEN_CODES as Record<string, AdyenRow>)
    .filter(([, , name]) => name !== '')
    .map(([reason, cls, name]) => [nameKey(name), [reason, cls]]),
);

export function lookupAdyen(code: string): Row | undefined {
  const c = code.trim().replace(/^0+(?=\d)/, '');
  const row = (ADYEN_CODES as Record<string, AdyenRow>)[c];
  if (row) return [row[0], row[1]];
  return BY_NAME.get(nameKey(code));
}

export const table: DeclineTable = {
  name: 'adyen',
  aliases: [],
  lookup(code) {
    const row = lookupAdyen(code);
    return row && matchOf(row);
  },
};
