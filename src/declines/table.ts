// What every gateway's decline table (tables/<gateway>.ts) offers: its name, the other
// spellings of it a merchant sends as responseCodeSource, and a lookup that answers with the
// row and the ISO 8583 code of a code, found once. Classification reads the row (and the raw
// scheme code where the gateway documents one); a connector shows the ISO code beside the
// gateway's own code (`GET /v1/orders`, the results file).
import type { CanonicalReason, Row } from './reasons.ts';

/** What a table says of one of its codes. */
export interface CodeMatch {
  row: Row;
  /** The ISO 8583 code shown for it: the raw scheme code, else the code of the same canonical reason ('05' when none). */
  iso: string;
  /** The raw scheme code the gateway documents for this code (Checkout.com): network rules read it. */
  networkCode?: string;
}

export interface DeclineTable {
  /** The source's name; where rescued has a connector for the gateway, its account type. */
  readonly name: string;
  /** Other spellings of responseCodeSource that name it, as `sourceKey` leaves them (letters and digits, lower case). */
  readonly aliases: readonly string[];
  /** The code's row; undefined sends the classifier to the free text. */
  lookup(code: string): CodeMatch | undefined;
}

/** The ISO 8583 code of each canonical reason, for gateways that publish no per-code mapping. */
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

/** '05' (do not honor) when the reason has no code: the cautious default of DESIGN.md §3. */
export function matchOf(row: Row, networkCode?: string | null): CodeMatch {
  const iso = networkCode ?? REASON_ISO[row[0]] ?? '05';
  return networkCode ? { row, iso, networkCode } : { row, iso };
}
