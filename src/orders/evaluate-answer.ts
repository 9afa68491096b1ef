// What one evaluate decides and stores, whichever path stores it: the response body, the order
// row, and the replies to a key whose record already stands.
import type { EvaluateRequest } from '../domain/index.ts';
import { RescuedError } from '../errors.ts';
import type { NewApiOrder } from '../db/queries/insert-api-order.ts';
import type { HeldKey } from '../db/queries/evaluation-json.ts';
import { declineFacts } from '../db/prior-attempts.ts';
import type { RealtimeAttempt } from './attempt.ts';
import type { OrderDeps } from './deps.ts';
import { orderSessionKeyFor } from './session-key.ts';

export interface EvaluateAnswer {
  statusCode: number;
  body: Record<string, unknown>;
  replayed: boolean;
}

export type Decision = Pick<RealtimeAttempt, 'status' | 'reason' | 'challenge' | 'confirmationId'> & { attempt?: RealtimeAttempt['row'] };

export type Edge = Awaited<ReturnType<OrderDeps['vault']['tokenizeAtEdge']>>;

/** One validated request on its way: what every path needs to decide and store it. */
export interface Evaluating {
  deps: OrderDeps;
  merchantId: string;
  req: EvaluateRequest;
  warnings: unknown[];
  /** The idempotency key, lower case. */
  key: string;
  requestHash: string;
  now: Date;
}

export const sessionKeyOf = (e: Evaluating) => orderSessionKeyFor(e.merchantId, e.key);

export function idempotencyMismatch(): RescuedError {
  return new RescuedError('ERR_API_IDEMPOTENCY_MISMATCH', undefined, [{ field: 'idempotencyKey', code: 'ERR_API_IDEMPOTENCY_MISMATCH', message: 'was already used with a different request body' }]);
}

export function duplicateOrderId(): RescuedError {
  return new RescuedError('ERR_API_DUPLICATE_ORDER_ID', undefined, [{ field: 'orderId', code: 'ERR_API_DUPLICATE_ORDER_ID', message: 'orderId was already used by another order of this merchant' }]);
}

/** A key whose record stands: the stored answer for the same body, 422 for another, 409 while the first runs. */
export function answerHeld(held: HeldKey, requestHash: string): EvaluateAnswer {
  if (held.route !== 'evaluate' || held.hash !== requestHash) throw idempotencyMismatch();
  if (held.state !== 'done') throw new RescuedError('ERR_API_IDEMPOTENCY_IN_FLIGHT');
  return { statusCode: Number(held.statusCode), body: held.response as Record<string, unknown>, replayed: true };
}

export function claimTimes(e: Evaluating): { expiresAt: Date; staleBefore: Date } {
  const s = e.deps.settings;
  return { expiresAt: new Date(e.now.getTime() + s.idempotencyTtlSeconds * 1000), staleBefore: new Date(e.now.getTime() - s.idempotencyInFlightSeconds * 1000) };
}

/** The response body and the order row of a decision (undefined: an MIT, stored SUBMITTED). */
export function answerOf(e: Evaluating, edge: Edge, d: Decision | undefined): { response: Record<string, unknown>; order: NewApiOrder } {
  const { req, now, deps } = e;
  const id = sessionKeyOf(e);
  const status = d ? d.status : 'SUBMITTED';
  const response: Record<string, unknown> = {
    success: true, result: 'Success', status, orderSessionKey: id,
    ...(req.senseKey !== undefined ? { senseKey: req.senseKey } : {}),
    ...(d?.reason ? { reason: d.reason } : {}),
    ...(d?.challenge ? { challenge: d.challenge } : {}),
    ...(e.warnings.length ? { warnings: e.warnings } : {}),
  };
  const final = status === 'APPROVED' || status === 'DECLINED';
  const order: NewApiOrder = {
    id, merchantId: e.merchantId, orderId: req.orderId, idempotencyKey: e.key, kind: req.isMIT ? 'MIT' : 'CIT', status, statusReason: d?.reason ?? null,
    amount: req.transaction.amount, currency: req.transaction.currency, cardToken: edge.card.token, cardBrand: req.paymentMethod.cardBrand,
    cardBin: edge.card.bin, cardLast4: edge.card.last4,
    expiresAt: req.isMIT ? new Date(req.expiryDateUtc!) : status === 'CHALLENGE' ? new Date(now.getTime() + deps.settings.challengeTtlSeconds * 1000) : null,
    declineCode: req.transaction.responseCode, declineSource: req.transaction.responseCodeSource, ...declineFacts(req.transaction, now),
    // The request is card-safe already (validated through domain/card-data.ts); the vault's token
    // takes the card number's place.
    request: { ...req, paymentMethod: edge.paymentMethod },
    nextAttemptAt: req.isMIT ? now : null, attemptCount: d?.attempt ? 1 : 0, confirmationId: d?.confirmationId ?? null,
    createdAt: now, finishedAt: final ? deps.clock.now() : null,
  };
  return { response, order };
}
