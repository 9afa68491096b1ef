// The evaluate path that claims the key first and decides after: taken by requests that call a
// gateway (claim, call, write, each grouped with other requests), and, one request at a time,
// by every case the grouped statements leave to it (a refused card, a group that raced
// another writer, an order or a charge already under the key). Its statements are the
// reference for what evaluate answers; the grouped paths must answer the same.
import { RescuedError } from '../errors.ts';
import { classifyDecline } from '../declines/classify.ts';
import { orderFacts } from '../processors/order-facts.ts';
import type { AuthorizeRequest } from '../processors/types.ts';
import { checkSandboxPayerEmail } from '../vault/test-cards.ts';
import { claimIdempotency, releaseIdempotency } from '../db/queries/idempotency.ts';
import { insertApiOrder } from '../db/queries/insert-api-order.ts';
import type { ApiOrderWrite } from '../db/queries/insert-api-orders.ts';
import { findOrder } from '../db/queries/find-order.ts';
import { decisions } from '../metrics.ts';
import { attemptNow } from './attempt.ts';
import type { OrderDeps } from './deps.ts';
import { answerOf, claimTimes, duplicateOrderId, idempotencyMismatch, sessionKeyOf, type Decision, type Edge, type EvaluateAnswer, type Evaluating } from './evaluate-answer.ts';

function challengeMethod(reason: string): '3ds' | 'cvv' {
  return reason === 'authentication_required' ? '3ds' : 'cvv';
}

/** A CIT's decision when it needs no processor (hard → DECLINED, data → CHALLENGE); 'soft': one attempt now. */
export function decideWithoutProcessor(req: Evaluating['req']): Decision | 'soft' {
  const tx = req.transaction;
  const c = classifyDecline({
    responseCodeSource: tx.responseCodeSource, responseCode: tx.responseCode, responseDescription: tx.responseDescription ?? null,
    responseSubStatus: tx.responseSubStatus ?? null, cardBrand: req.paymentMethod.cardBrand, at: new Date(tx.timestampUtc),
    // A Mastercard "do not try again" (03) or "stop recurring" (21) on the original decline is
    // hard: no attempt, as for an MIT (docs/engine.md, "What the card's windows count").
    merchantAdviceCode: tx.merchantAdviceCode || null,
  });
  if (c.class === 'hard') return { status: 'DECLINED', reason: c.reason, challenge: undefined, confirmationId: null };
  if (c.class === 'data') return { status: 'CHALLENGE', reason: c.reason, challenge: challengeMethod(c.reason), confirmationId: null };
  return 'soft';
}

/** The attempt of a CIT soft decline: the first of its order, under the order's derived key. */
export function authorizeRequestOf(e: Evaluating, cardToken: string): AuthorizeRequest {
  const { req } = e;
  const id = sessionKeyOf(e);
  return {
    idempotencyKey: `${id}:1`, reference: id, merchantId: e.merchantId, cardToken,
    amount: req.transaction.amount, currency: req.transaction.currency, isMIT: false, timezoneUtcOffset: req.transaction.timezoneUtcOffset, order: orderFacts(req),
  };
}

async function decideCit(e: Evaluating, cardToken: string): Promise<Decision> {
  const d = decideWithoutProcessor(e.req);
  if (d !== 'soft') return d;
  const a = await attemptNow(e.deps, authorizeRequestOf(e, cardToken), 1, 'cit_realtime', e.req.paymentMethod.cardBrand);
  return { ...a, attempt: a.row };
}

/** Decides a claimed request and writes it through `write`; the key is released if anything fails. */
export async function decideAndStore(e: Evaluating, edge: Edge, write: (w: ApiOrderWrite) => Promise<boolean>): Promise<EvaluateAnswer> {
  const { deps, merchantId, key } = e;
  try {
    const emailProblem = checkSandboxPayerEmail(edge.testCard, e.req.payer.email);
    if (emailProblem) throw new RescuedError('ERR_VAULT_PAYER_EMAIL_REQUIRED', undefined, [emailProblem]);
    const d = e.req.isMIT ? undefined : await decideCit(e, edge.card.token);
    const { response, order } = answerOf(e, edge, d);
    if (!(await write({ order, attempt: d?.attempt, answered: { key, statusCode: 200, response } }))) {
      // An order with this very orderSessionKey: the key was used before and its record has
      // since been pruned; the processor answered that order's attempt again, which stands.
      if (await findOrder(deps.db, merchantId, order.id)) throw idempotencyMismatch();
      // A concurrent request took the orderId first: this one's approval must not stand.
      if (d?.confirmationId) await voidQuietly(deps, order.id, d.confirmationId, order.currency, d.attempt?.accountId ?? null);
      throw duplicateOrderId();
    }
    decisions.inc({ kind: order.kind, status: order.status });
    return { statusCode: 200, body: response, replayed: false };
  } catch (err) {
    await releaseIdempotency(deps.db, merchantId, key).catch((r: unknown) => deps.log.warn({ err: r }, 'idempotency key not released'));
    throw err;
  }
}

/** One request on its own: claim (with the orderId check), decide, write; four or five statements. */
export async function evaluateOneByOne(e: Evaluating): Promise<EvaluateAnswer> {
  const { deps, merchantId, key, req } = e;
  // The card look-up does not depend on the claim: both go to the database at once. Tokenizing
  // a full number for a request that turns out to be a replay stores nothing new (one row per card).
  const edge = deps.vault.tokenizeAtEdge(merchantId, req.paymentMethod);
  edge.catch(() => {}); // awaited below when the request goes on; a replay does not need it
  const claim = await claimIdempotency(deps.db, { merchantId, key, route: 'evaluate', requestHash: e.requestHash, now: e.now, orderId: req.orderId, ...claimTimes(e) });
  if (claim.kind === 'mismatch') throw idempotencyMismatch();
  if (claim.kind === 'in_flight') throw new RescuedError('ERR_API_IDEMPOTENCY_IN_FLIGHT');
  if (claim.kind === 'replay') return { statusCode: claim.statusCode, body: claim.response as Record<string, unknown>, replayed: true };
  if (claim.orderIdTaken) {
    // Nothing was decided: the key is free again (a retry meets the same orderId and this answer).
    await releaseIdempotency(deps.db, merchantId, key);
    throw duplicateOrderId();
  }
  let known: Edge;
  try {
    known = await edge;
  } catch (err) {
    await releaseIdempotency(deps.db, merchantId, key).catch((r: unknown) => deps.log.warn({ err: r }, 'idempotency key not released'));
    throw err;
  }
  return decideAndStore(e, known, (w) => insertApiOrder(deps.db, w.order, w.attempt, w.answered));
}

async function voidQuietly(deps: OrderDeps, id: string, processorRef: string, currency: string, accountId: string | null): Promise<void> {
  try {
    await deps.processor?.void({ idempotencyKey: `${id}:void`, reference: id, processorRef, currency, accountId });
  } catch (err) {
    deps.log.error({ err, orderSessionKey: id }, 'void of a duplicate order\'s approval failed');
  }
}
