// Authorize.Net response reason codes.
// Source: shared/reference/gateway-decline-codes.md §5, from
// https://developer.authorize.net/api/reference/responseCodes.html (its JSON data) and the
// older AIM guide. Authorize.Net exposes no issuer ISO code and returns insufficient funds as
// plain reason 2, so NSF cannot be told apart from do-not-honor here.
import type { Row } from '../reasons.ts';
import { matchOf, type DeclineTable } from '../table.ts';

const TEMPORARY: Row = ['processing_error', 'soft-temporary'];

export const AUTHORIZENET_CODES = {
  '2': ['generic_decline', 'soft-generic'], // NSF and do-not-honor alike
  '3': ['call_issuer', 'soft-generic'], // voice referral: not feasible online
  '4': ['pickup_card', 'hard'],
  '6': ['invalid_card_number', 'data'],
  '37': ['invalid_card_number', 'data'],
  '7': ['invalid_expiry', 'data'],
  '8': ['expired_card', 'data'],
  '11': ['duplicate', 'soft-generic'], // within the duplicate window: look for the earlier success
  // 116–118: the 3-D Secure values were refused (responseCodes.json): the payer must authenticate again.
  '116': ['authentication_required', 'data'],
  '117': ['authentication_required', 'data'],
  '118': ['authentication_required', 'data'],
  '17': ['card_not_supported', 'hard'], // card type not accepted: merchant-side
  '28': ['card_not_supported', 'hard'],
  '19': TEMPORARY, '20': TEMPORARY, '21': TEMPORARY, '22': TEMPORARY, '23': TEMPORARY,
  '25': TEMPORARY, '26': TEMPORARY,
  '27': ['avs_failure', 'data'],
  '35': ['merchant_side', 'soft-temporary'], // processor set-up error
  '41': ['merchant_side', 'hard'], // FraudScreen score above our threshold
  '44': ['cvv_failure', 'data'],
  '45': ['avs_failure', 'data'], // AVS and card-code filters
  '57': TEMPORARY, '58': TEMPORARY, '59': TEMPORARY, '60': TEMPORARY, '61': TEMPORARY,
  '62': TEMPORARY, '63': TEMPORARY,
  '65': ['cvv_failure', 'data'], // card-code mismatch, our filter
  '78': ['cvv_failure', 'data'], // card code format invalid
  '120': TEMPORARY, '121': TEMPORARY, '122': TEMPORARY, // verify the status before a retry
  '127': ['avs_failure', 'data'],
  '141': ['merchant_side', 'hard'], // FraudScreen reject
  '145': ['cvv_failure', 'data'],
  '165': ['cvv_failure', 'data'],
  '200': ['invalid_card_number', 'data'], // FDC Omaha
  '201': ['invalid_expiry', 'data'], // FDC Omaha
  '209': TEMPORARY, '214': TEMPORARY, '220': TEMPORARY, '224': TEMPORARY, // FDC Omaha
  '250': ['merchant_side', 'hard'], // blocked IP address: our rule
  '251': ['merchant_side', 'hard'], // Fraud Detection Suite filter: our rule
  // 252/253 are "held for review", not declines: the original may still settle, so a retry
  // could charge twice. Never retried.
  '252': ['pending_review', 'hard'],
  '253': ['pending_review', 'hard'],
  '254': ['generic_decline', 'hard'], // declined after manual review
  '315': ['invalid_card_number', 'data'],
  '316': ['invalid_expiry', 'data'],
  '317': ['expired_card', 'data'],
  '318': ['duplicate', 'soft-generic'],
  '901': TEMPORARY, // system maintenance
} as const satisfies Record<string, Row>;

export function lookupAuthorizeNet(code: string): Row | undefined {
  return (AUTHORIZENET_CODES as Record<string, Row>)[code.trim().replace(/^0+(?=\d)/, '')];
}

export const table: DeclineTable = {
  name: 'authorizenet',
  aliases: ['authnet', 'authorize'],
  lookup(code) {
    const row = lookupAuthorizeNet(code);
    return row && matchOf(row);
  },
};
