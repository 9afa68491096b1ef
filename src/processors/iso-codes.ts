// The ISO 8583 response code shown for a gateway's own decline code when the gateway did not
// pass the network's raw code on: the code of the same canonical reason. The engine still
// classifies the decline from the gateway's code with that gateway's table (rawCode); this
// code is what `GET /v1/orders` and the results file show beside it.
import type { CanonicalReason } from '../engine/reasons.ts';
import { lookupAdyen } from '../engine/codes/adyen.ts';
import { lookupAuthorizeNet } from '../engine/codes/authorizenet.ts';
import { lookupBraintree } from '../engine/codes/braintree.ts';
import { lookupNmi } from '../engine/codes/nmi.ts';
import { lookupStripe } from '../engine/codes/stripe.ts';
import type { Row } from '../engine/reasons.ts';

const REASON_ISO: Partial<Record<CanonicalReason, string>> = {
  insufficient_funds: '51',
  limit_exceeded: '61',
  do_not_honor: '05',
  generic_decline: '05',
  call_issuer: '01',
  expired_card: '54',
  invalid_expiry: '54',
  cvv_failure: 'N7',
  invalid_card_number: '14',
  closed_account: '14',
  invalid_account: '14',
  lost_or_stolen: '43',
  pickup_card: '04',
  suspected_fraud: '59',
  stop_payment: 'R0',
  issuer_unavailable: '91',
  processing_error: '96',
  try_again_later: '19',
  transaction_not_permitted: '57',
  authentication_required: '1A',
  duplicate: '94',
};

const TABLES: Record<string, (code: string) => Row | undefined> = {
  stripe: lookupStripe,
  adyen: lookupAdyen,
  braintree: lookupBraintree,
  authorizenet: lookupAuthorizeNet,
  nmi: lookupNmi,
};

/** '05' (do not honor) when the code is unknown: the cautious default of DESIGN.md §3. */
export function isoCodeFor(gateway: string, rawCode: string | undefined): string {
  const row = rawCode === undefined ? undefined : TABLES[gateway]?.(rawCode);
  return (row && REASON_ISO[row[0]]) ?? '05';
}
