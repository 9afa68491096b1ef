// The planner's inputs and outputs. Kept apart from planner.ts so the stages that build the
// inputs (attempt history queries, the merchant model) can import the shapes alone.
import type { Classification } from '../declines/classify.ts';
import type { Rules } from './rules.ts';
import type { LearnedInput } from './learning/estimate.ts';

export const STOP_REASONS = [
  'already_approved',
  'expiry_reached',
  'visa_category_1',
  'mastercard_advice_do_not_retry',
  'hard_decline',
  'authentication_required_mit',
  'card_data_required_mit',
  'customer_action_required',
  'order_attempt_cap',
  'visa_reattempt_cap',
  'mastercard_attempt_cap',
  'mastercard_decline_cap_24h',
  'brand_attempt_cap',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const RETRY_REASONS = ['temporary_backoff', 'payday_morning', 'daily_spacing', 'last_chance_before_expiry'] as const;
export type RetryReason = (typeof RETRY_REASONS)[number];

export type Plan =
  /** evidence: with learned timing, why this slot ("learned: …" or "prior: <reason>"). */
  | { action: 'retry'; at: Date; reason: RetryReason; evidence?: string }
  | { action: 'stop'; reason: StopReason; detail?: string };

export interface PlanOrder {
  /** orderSessionKey (or any stable id): seeds the deterministic spread; absent → no spread. */
  id?: string;
  amount: number;
  currency: string;
  cardBrand?: string | null;
  expiryDateUtc: Date;
  /** Hours (|x| ≤ 14, fractions allowed) or minutes (|x| > 14); local = UTC + offset. */
  timezoneUtcOffset?: number | null;
  /** When the order (and its original decline) came in; the first retry is timed from it. */
  createdAt: Date;
  /** When the original decline happened (transaction.timestampUtc); its advice delay runs from it. Absent: createdAt. */
  declinedAt?: Date;
  isMIT: boolean;
}

/** Whose authorization a record is: rescued's attempt, an order's original decline, or one of the merchant's earlier tries. */
/** transmitted: a payment the merchant made itself and sent to POST /v1/transmit. */
export type AttemptOrigin = 'rescued' | 'original' | 'prior' | 'transmitted';

export interface AttemptRecord {
  at: Date;
  /** The processor's response code; read as ISO 8583 for Visa categories unless networkCode is given. */
  responseCode?: string | null;
  /** The raw ISO 8583 code, when the processor's own code is not one. */
  networkCode?: string | null;
  /** Mastercard MAC returned with the decline. */
  adviceCode?: string | null;
  approved: boolean;
  /** Absent: rescued's. */
  origin?: AttemptOrigin;
  /** Visa counts CIT and MIT apart (rules.visa.reattemptLimits). Absent: MIT. */
  initiator?: 'CIT' | 'MIT';
  /** The first authorization of its order: not a reattempt for Visa (nor for the other brands' cap). */
  initial?: boolean;
}

/**
 * The merchant model (built from /transmit approvals, smoothed towards a global prior).
 * hourWeights[h] weighs the payer's LOCAL hour h (0–23); dayOfMonthWeights[d-1] weighs local
 * day of month d (1–31). Only relative sizes matter; a model of the wrong shape is ignored.
 */
export interface MerchantModel {
  hourWeights: readonly number[];
  dayOfMonthWeights: readonly number[];
}

export interface PlanInput {
  order: PlanOrder;
  /** The classification of the latest decline, with its advice. */
  decline: Classification;
  /** This order's attempts by rescued (not the merchant's original decline). */
  attempts: readonly AttemptRecord[];
  /**
   * Every authorization on this card at this merchant in (at least) the last 30 days, all
   * orders, this one included: rescued's attempts, each order's original decline and the
   * merchant's earlier tries (docs/engine.md, "What the card's windows count").
   */
  cardAttempts: readonly AttemptRecord[];
  model?: MerchantModel | null;
  /** Learned timing (engine.learning on or frozen): the table and the order's family and BIN. */
  learned?: LearnedInput | null;
  rules?: Rules;
  now: Date;
}
