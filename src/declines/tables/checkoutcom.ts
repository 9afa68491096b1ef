// Checkout.com API response codes, with the raw scheme code each stands for.
// Source: shared/reference/gateway-decline-codes.md §6, from
// https://www.checkout.com/docs/resources/codes/api-response-codes (updated 2025-12-03) and
// https://support.checkout.com/hc/en-us/articles/24416729620626 (API code ↔ raw scheme code).
// Ranges: 20xxx soft, 30xxx hard, 40xxx our risk settings, 50xxx declined by Checkout.com; the
// last two digits of 200NN/300NN carry the scheme code. The third column is that ISO code,
// used for the Visa category when no partner_response_code is passed, and shown as the ISO code.
import type { CanonicalReason, TableClass } from '../reasons.ts';
import { matchOf, type CodeMatch, type DeclineTable } from '../table.ts';

type CheckoutRow = readonly [reason: CanonicalReason, cls: TableClass, iso: string | null];

export const CHECKOUTCOM_CODES = {
  '20001': ['call_issuer', 'soft-generic', '01'],
  '20002': ['call_issuer', 'soft-generic', '02'],
  '20003': ['merchant_side', 'soft-temporary', '03'],
  '20005': ['do_not_honor', 'soft-generic', '05'], // can hide a failed CVV or AVS check
  '20012': ['transaction_not_permitted', 'hard', '12'], // (3rd-party); Visa category 1
  '20013': ['invalid_amount', 'soft-generic', '13'], // (3rd-party)
  '20014': ['invalid_card_number', 'data', '14'],
  '20051': ['insufficient_funds', 'soft-funds', '51'],
  '20054': ['expired_card', 'data', '54'],
  '20057': ['transaction_not_permitted', 'hard', '57'], // soft range; Visa category 1 from Oct 2026
  '20059': ['suspected_fraud', 'hard', '59'], // conservative; soft range, Visa category 2
  '20061': ['limit_exceeded', 'soft-funds', '61'],
  '20062': ['restricted_card', 'soft-generic', '62'],
  '20063': ['security_violation', 'hard', '63'], // (3rd-party)
  '20065': ['limit_exceeded', 'soft-funds', '65'], // (unverified)
  '20068': ['issuer_unavailable', 'soft-temporary', '68'], // (3rd-party) response too late
  '20078': ['card_not_activated', 'soft-generic', '78'], // the customer can activate
  '20087': ['cvv_failure', 'data', null], // (3rd-party) bad track data
  '20091': ['issuer_unavailable', 'soft-temporary', '91'], // (unverified)
  '20096': ['processing_error', 'soft-temporary', '96'], // (3rd-party)
  '20150': ['authentication_required', 'data', null], // (3rd-party) card not 3DS-enabled
  '20153': ['processing_error', 'soft-temporary', null], // (3rd-party) 3DS malfunction
  '20154': ['authentication_required', 'data', null], // (3rd-party)
  '20179': ['new_account_information', 'data', '79'], // life cycle
  '20182': ['generic_decline', 'soft-generic', '82'], // policy
  '20183': ['security_violation', 'hard', '83'], // conservative; Visa category 2 from Oct 2026
  '200R1': ['stop_payment', 'hard', 'R1'], // (3rd-party)
  '200R3': ['stop_payment', 'hard', 'R3'], // (unverified)
  '30004': ['pickup_card', 'hard', '04'], // (3rd-party)
  '30007': ['pickup_card', 'hard', '07'], // (3rd-party)
  '30015': ['invalid_account', 'hard', '15'], // (3rd-party) no such issuer
  '30033': ['expired_card', 'data', '33'], // (3rd-party) new card details needed
  '30034': ['suspected_fraud', 'hard', '34'], // (unverified)
  '30041': ['lost_or_stolen', 'hard', '41'], // (unverified)
  '30043': ['lost_or_stolen', 'hard', '43'], // (unverified)
  '30044': ['transaction_not_permitted', 'hard', null], // (3rd-party) prepaid over AMLD5 limit
  '30046': ['closed_account', 'hard', '46'], // (3rd-party)
} as const satisfies Record<string, CheckoutRow>;

/** Codes outside the table, by documented range. */
function byRange(code: string): CodeMatch | undefined {
  const iso = /^[23]00[0-9A-Z]{2}$/.test(code) ? code.slice(3) : undefined;
  if (code.startsWith('20')) return matchOf(['generic_decline', 'soft-generic'], iso);
  if (code.startsWith('30')) return matchOf(['generic_decline', 'hard'], iso);
  if (code.startsWith('40')) return matchOf(['merchant_side', 'hard']); // our risk settings: review
  if (code.startsWith('50')) return matchOf(['generic_decline', 'soft-generic']); // (unverified)
  return undefined;
}

export function lookupCheckoutCom(raw: string): CodeMatch | undefined {
  const code = raw.trim().toUpperCase();
  if (!/^\d{2}[0-9A-Z]{3}$/.test(code)) return undefined;
  const row = (CHECKOUTCOM_CODES as Record<string, CheckoutRow>)[code];
  return row ? matchOf([row[0], row[1]], row[2]) : byRange(code);
}

export const table: DeclineTable = {
  name: 'checkoutcom',
  aliases: ['checkout', 'cko'],
  lookup: lookupCheckoutCom,
};
