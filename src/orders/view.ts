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
    batchId: o.batchId,
    sequenceNumber: o.sequenceNumber,
    nextAttempt: planned,
    attemptHistory: attempts.map(attemptView),
  };
}
