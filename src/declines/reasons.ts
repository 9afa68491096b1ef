// The vocabulary of the classifier: canonical decline reasons, the three classes the engine
// acts on (DESIGN.md §3) and the five-way class the reference tables are written in
// (shared/reference/gateway-decline-codes.md: hard, soft-funds, soft-temporary, soft-generic,
// data). Tables store the reference's five-way class verbatim so a row can be checked against
// the document by eye; `splitClass` turns it into class + softKind for the engine.

export const CANONICAL_REASONS = [
  'insufficient_funds',
  'limit_exceeded',
  'do_not_honor',
  'generic_decline',
  'call_issuer',
  'invalid_amount',
  'duplicate',
  'card_not_activated',
  'issuer_unavailable',
  'processing_error',
  'try_again_later',
  'lost_or_stolen',
  'pickup_card',
  'suspected_fraud',
  'security_violation',
  'blocked_card',
  'restricted_card',
  'transaction_not_permitted',
  'card_not_supported',
  'closed_account',
  'invalid_account',
  'invalid_card_number',
  'expired_card',
  'invalid_expiry',
  'cvv_failure',
  'avs_failure',
  'authentication_required',
  'new_account_information',
  'card_present_only',
  'stop_payment',
  'do_not_retry',
  'excessive_retries',
  'pending_review',
  'cancelled',
  'merchant_side',
  'unknown',
] as const;
export type CanonicalReason = (typeof CANONICAL_REASONS)[number];

export const DECLINE_CLASSES = ['hard', 'soft', 'data'] as const;
export type DeclineClass = (typeof DECLINE_CLASSES)[number];

export const SOFT_KINDS = ['funds', 'temporary', 'generic'] as const;
export type SoftKind = (typeof SOFT_KINDS)[number];

/** The reference documents' class vocabulary, as stored in every table row. */
export const TABLE_CLASSES = ['hard', 'soft-funds', 'soft-temporary', 'soft-generic', 'data'] as const;
export type TableClass = (typeof TABLE_CLASSES)[number];

/** One table row: what a code means and how the reference classes it. */
export type Row = readonly [reason: CanonicalReason, cls: TableClass];

export interface SplitClass {
  class: DeclineClass;
  softKind?: SoftKind;
}

const SPLIT: Record<TableClass, SplitClass> = {
  hard: { class: 'hard' },
  data: { class: 'data' },
  'soft-funds': { class: 'soft', softKind: 'funds' },
  'soft-temporary': { class: 'soft', softKind: 'temporary' },
  'soft-generic': { class: 'soft', softKind: 'generic' },
};

export function splitClass(cls: TableClass): SplitClass {
  return SPLIT[cls];
}

export function joinClass(cls: DeclineClass, softKind?: SoftKind): TableClass {
  if (cls !== 'soft') return cls;
  return `soft-${softKind ?? 'generic'}`;
}

export function isTableClass(value: unknown): value is TableClass {
  return typeof value === 'string' && (TABLE_CLASSES as readonly string[]).includes(value);
}
