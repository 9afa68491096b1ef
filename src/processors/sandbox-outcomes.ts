// The sandbox processor's decisions, pure: a test card's outcome (samples/test-cards.json),
// the call, the clock and the earlier calls of the same order → an answer. Kept apart from
// the I/O so each outcome kind is tested on its own, and so the same input always gives the
// same answer: every path of the engine can be replayed end to end.
import { createHash } from 'node:crypto';
import { isPayday, localDayStart, utcOffsetMs, MINUTE_MS, type Paydays } from '../calendar.ts';
import type { TestCard } from '../vault/test-cards.ts';
import type { AuthorizeRequest, ProcessorResponse } from './types.ts';

// The payday card's own calendar, as samples/test-cards.json documents it: the 1st, the 15th,
// the last business day and Fridays, whatever day of the week a date falls on. It is the
// issuer's side of the test, so it stays put when the planner's beliefs about paydays are
// tuned (src/engine/rules.ts).
const CARD_PAYDAYS: Paydays = {
  paydayDaysOfMonth: [1, 15],
  paydayLastBusinessDay: true,
  paydayWeekendToFriday: false,
  paydayWeekdays: [5],
};

/** What is stored per idempotency key: the answer, and for a charge what it captured. */
export type StoredAnswer = Omit<ProcessorResponse, 'replayed'> & {
  amount?: number;
  currency?: string;
  /** refund and void: the processorRef of the approval they act on. */
  of?: string;
};

/** What the sandbox knows of earlier calls of the same order (reference). */
export interface PriorCall {
  operation: 'authorize' | 'refund' | 'void';
  approved: boolean;
  at: Date;
  answer: StoredAnswer;
}

/** Deterministic per key, so a replayed test run yields the same confirmation ids. */
export function sandboxRef(idempotencyKey: string): string {
  return `sbx_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}`;
}

type Answer = Omit<StoredAnswer, 'processorRef'>;

const approve = (): Answer => ({ approved: true, responseCode: '00' });
const decline = (responseCode: string, reason: string, adviceCode?: string): Answer =>
  adviceCode === undefined ? { approved: false, responseCode, reason } : { approved: false, responseCode, reason, adviceCode };

/** A number that is not a test card (or a token the vault does not know): no such account. */
export const NOT_A_TEST_CARD = decline('14', 'invalid_card_number');

/** The answer to an authorization of `card` at `now`, given the order's earlier authorizations. */
export function decideAuthorize(card: TestCard | undefined, request: AuthorizeRequest, now: Date, prior: readonly PriorCall[]): Answer {
  if (!card) return NOT_A_TEST_CARD;
  const charges = prior.filter((c) => c.operation === 'authorize');
  const first = charges[0]?.at.getTime();
  const o = card.processor;
  switch (o.outcome) {
    case 'approve':
      return approve();
    case 'decline':
      return decline(o.responseCode, o.reason, o.merchantAdviceCode);
    case 'approve_after':
      return charges.length >= o.attempts ? approve() : decline(o.declineCode, o.reason);
    case 'approve_on_payday': {
      const localDay = localDayStart(now.getTime(), utcOffsetMs(request.timezoneUtcOffset));
      return isPayday(localDay, CARD_PAYDAYS) ? approve() : decline(o.declineCode, o.reason);
    }
    case 'issuer_outage_then_approve':
      return first !== undefined && now.getTime() - first >= o.outageMinutes * MINUTE_MS ? approve() : decline(o.declineCode, o.reason);
    case 'retry_after':
      return first !== undefined && now.getTime() - first >= o.waitMinutes * MINUTE_MS ? approve() : decline(o.declineCode, o.reason, o.merchantAdviceCode);
    case 'challenge':
      return challenge(o.method, request);
  }
}

/**
 * A customer present can complete the challenge: the call that carries the CVV (or the 3-D
 * Secure data) is approved. A merchant-initiated call has nobody to ask: it is declined as
 * the issuer would (1A authentication required, N7 CVV failure), which the engine classifies
 * as needing the customer and stops.
 */
function challenge(method: '3ds' | 'cvv', request: AuthorizeRequest): Answer {
  const completed = method === 'cvv' ? typeof request.cvv === 'string' && request.cvv !== '' : request.threeDSecure != null;
  if (completed) return approve();
  const answer = method === 'cvv' ? decline('N7', 'cvv_failure') : decline('1A', 'authentication_required');
  return request.isMIT ? answer : { ...answer, challenge: method };
}

/** The approved authorization `processorRef` names among the order's calls. */
function findCharge(prior: readonly PriorCall[], processorRef: string): PriorCall | undefined {
  return prior.find((c) => c.operation === 'authorize' && c.approved && c.answer.processorRef === processorRef);
}

const actsOn = (prior: readonly PriorCall[], ref: string, op: 'refund' | 'void') => prior.filter((c) => c.operation === op && c.approved && c.answer.of === ref);

/** A refund: of an approved charge not voided, never more than what is left of it. */
export function decideRefund(processorRef: string, amount: number, prior: readonly PriorCall[]): Answer {
  const charge = findCharge(prior, processorRef);
  if (!charge || actsOn(prior, processorRef, 'void').length > 0) return decline('12', 'transaction_not_permitted');
  const refunded = actsOn(prior, processorRef, 'refund').reduce((sum, c) => sum + (c.answer.amount ?? 0), 0);
  if (!(amount > 0) || refunded + amount > (charge.answer.amount ?? 0)) return decline('13', 'invalid_amount');
  return approve();
}

/** A void: of an approved charge with no refund or void yet. */
export function decideVoid(processorRef: string, prior: readonly PriorCall[]): Answer {
  const charge = findCharge(prior, processorRef);
  if (!charge || actsOn(prior, processorRef, 'void').length > 0 || actsOn(prior, processorRef, 'refund').length > 0) return decline('12', 'transaction_not_permitted');
  return approve();
}
