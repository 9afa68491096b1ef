// How an order is shown to its merchant: /outcome answers the summary, GET /v1/orders/{key}
// adds the attempts and the planned next attempt. Never a card number: BIN and last four.
import type { AttemptWithAccount, OrderRow } from '../db/queries/find-order.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const OPEN_FOR_ENGINE = new Set(['SUBMITTED', 'PENDING']);

export function orderSummary(o: OrderRow) {
  return {
    success: true,
    result: 'Success',
    status: o.status,
    statusCode: null,
    errors: [],
    orderSessionKey: o.id,
    orderId: o.orderId,
    kind: o.kind,
    reason: o.statusReason,
    confirmationId: o.confirmationId,
    amount: o.amount,
    currency: o.currency,
    refundedAmount: o.refundedAmount,
    attempts: o.attemptCount,
    expiresAt: iso(o.expiresAt),
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
    finishedAt: iso(o.finishedAt),
  };
}

/** Where an attempt was charged and what the gateway said, as it said it (never a credential). */
export function gatewayView(a: AttemptWithAccount) {
  if (!a.accountId && !a.rawCode) return null;
  return { account: a.accountLabel, type: a.accountType, route: a.route, rawCode: a.rawCode, rawMessage: a.rawMessage, networkTransactionId: a.networkTransactionId };
}

export function attemptView(a: AttemptWithAccount) {
  return {
    attemptNo: a.attemptNo,
    status: a.status,
    responseCode: a.responseCode,
    adviceCode: a.adviceCode,
    reason: a.reason,
    declineClass: a.declineClass,
    planReason: a.planReason,
    processorRef: a.processorRef,
    gateway: gatewayView(a),
    startedAt: iso(a.startedAt),
    finishedAt: iso(a.finishedAt),
  };
}

export function orderDetail(o: OrderRow, attempts: AttemptWithAccount[]) {
  const planned = OPEN_FOR_ENGINE.has(o.status) && o.nextAttemptAt ? { at: iso(o.nextAttemptAt), reason: o.planReason } : null;
  return {
    ...orderSummary(o),
    card: { bin: o.cardBin, last4: o.cardLast4, brand: o.cardBrand },
    // The cards the order left for the payer's next one (the cascade), oldest first: never charged again.
    endedCards: endedCardsView(o.endedCards),
    batchId: o.batchId,
    sequenceNumber: o.sequenceNumber,
    nextAttempt: planned,
    attemptHistory: attempts.map(attemptView),
  };
}

/** orders.ended_cards as the merchant sees it: token (its own), last four, why and when. */
function endedCardsView(v: unknown): Array<{ token: string; last4: string | null; reason: string | null; at: string | null }> {
  if (!Array.isArray(v)) return [];
  return v.flatMap((e: { token?: unknown; last4?: unknown; reason?: unknown; at?: unknown }) =>
    typeof e?.token === 'string' ? [{ token: e.token, last4: typeof e.last4 === 'string' ? e.last4 : null, reason: typeof e.reason === 'string' ? e.reason : null, at: typeof e.at === 'string' ? e.at : null }] : [],
  );
}
