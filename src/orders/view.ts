// How an order is shown to its merchant: /outcome answers the summary, GET /v1/orders/{key}
// adds the attempts and the planned next attempt. Never a card number: BIN and last four.
import type { AttemptWithAccount, OrderRow } from '../db/queries/find-order.ts';
import { AWAITING_UPDATED_CARD, awaitingOf, cardUpdatesOf } from '../domain/card-updates.ts';

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
    recoveredBy: recoveredBy(o),
  };
}

/** What recovered an APPROVED order; an approval before the column (or at evaluate) is a retry's. */
export function recoveredBy(o: Pick<OrderRow, 'status' | 'recoveredBy'>): string | null {
  return o.status === 'APPROVED' ? (o.recoveredBy ?? 'retry') : null;
}

/** The order's card updates, as its timeline's order.card_updated entries (never more than BIN and last four). */
export function cardUpdatesView(o: Pick<OrderRow, 'cardUpdates'>) {
  return cardUpdatesOf(o.cardUpdates).map((u) => ({
    event: 'order.card_updated' as const, at: u.at, source: u.source, kind: u.kind, bin: u.bin ?? null, last4: u.last4 ?? null, brand: u.brand ?? null,
    expMonth: u.expMonth ?? null, expYear: u.expYear ?? null, afterAttempts: u.afterAttempts,
  }));
}

/** The credential an attempt charged: the order's own card, or one of its updates. */
export function attemptCard(o: Pick<OrderRow, 'cardToken' | 'cardLast4' | 'cardUpdates'>, credential: string) {
  if (credential === o.cardToken) return { source: 'original', last4: o.cardLast4 };
  const u = cardUpdatesOf(o.cardUpdates).filter((x) => x.credential === credential).at(-1);
  return { source: u?.source ?? 'original', last4: u?.last4 ?? o.cardLast4 };
}

/** The planned next attempt; while the order waits for an updated card, that and the decline that caused it. */
export function nextAttemptView(o: OrderRow) {
  if (!OPEN_FOR_ENGINE.has(o.status)) return null;
  const waiting = o.planReason === AWAITING_UPDATED_CARD ? awaitingOf(o.awaitingCard) : null;
  if (waiting) return { at: null, reason: AWAITING_UPDATED_CARD, decline: waiting.decline, until: iso(o.expiresAt) };
  return o.nextAttemptAt ? { at: iso(o.nextAttemptAt), reason: o.planReason } : null;
}

/** Where an attempt was charged and what the gateway said, as it said it (never a credential). */
export function gatewayView(a: AttemptWithAccount) {
  if (!a.accountId && !a.rawCode) return null;
  return { account: a.accountLabel, type: a.accountType, route: a.route, rawCode: a.rawCode, rawMessage: a.rawMessage, networkTransactionId: a.networkTransactionId };
}

export function attemptView(a: AttemptWithAccount, o?: Pick<OrderRow, 'cardToken' | 'cardLast4' | 'cardUpdates'>) {
  return {
    attemptNo: a.attemptNo,
    status: a.status,
    responseCode: a.responseCode,
    adviceCode: a.adviceCode,
    reason: a.reason,
    declineClass: a.declineClass,
    planReason: a.planReason,
    processorRef: a.processorRef,
    card: o ? attemptCard(o, a.cardToken) : { source: 'original', last4: null },
    gateway: gatewayView(a),
    startedAt: iso(a.startedAt),
    finishedAt: iso(a.finishedAt),
  };
}

export function orderDetail(o: OrderRow, attempts: AttemptWithAccount[]) {
  return {
    ...orderSummary(o),
    card: { bin: o.cardBin, last4: o.cardLast4, brand: o.cardBrand },
    // The cards the order left for the payer's next one (the cascade), oldest first: never charged again.
    endedCards: endedCardsView(o.endedCards),
    batchId: o.batchId,
    sequenceNumber: o.sequenceNumber,
    nextAttempt: nextAttemptView(o),
    awaitedUpdatedCard: awaitingOf(o.awaitingCard),
    cardUpdates: cardUpdatesView(o),
    attemptHistory: attempts.map((a) => attemptView(a, o)),
  };
}

/** orders.ended_cards as the merchant sees it: token (its own), last four, why and when. */
function endedCardsView(v: unknown): Array<{ token: string; last4: string | null; reason: string | null; at: string | null }> {
  if (!Array.isArray(v)) return [];
  return v.flatMap((e: { token?: unknown; last4?: unknown; reason?: unknown; at?: unknown }) =>
    typeof e?.token === 'string' ? [{ token: e.token, last4: typeof e.last4 === 'string' ? e.last4 : null, reason: typeof e.reason === 'string' ? e.reason : null, at: typeof e.at === 'string' ? e.at : null }] : [],
  );
}
