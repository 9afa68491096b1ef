// POST /v1/evaluate (DESIGN.md §3): a CIT is decided in real time — hard decline → DECLINED,
// data decline → CHALLENGE, soft decline → one attempt now → APPROVED or DECLINED (or
// CHALLENGE when the issuer asks for it); an MIT is stored SUBMITTED for the engine.
// Idempotency per DESIGN.md §2 wraps the whole call.
import { validateEvaluate, type EvaluateRequest } from '../domain/index.ts';
import { RescuedError } from '../errors.ts';
import { classifyDecline } from '../engine/classify.ts';
import { orderFacts } from '../processors/order-facts.ts';
import { checkSandboxPayerEmail } from '../vault/test-cards.ts';
import { claimIdempotency, releaseIdempotency } from '../db/queries/idempotency.ts';
import { insertApiOrder, type NewApiOrder } from '../db/queries/insert-api-order.ts';
import { findOrder } from '../db/queries/find-order.ts';
import { decisions } from '../metrics.ts';
import { attemptNow, type RealtimeAttempt } from './attempt.ts';
import type { OrderDeps } from './deps.ts';
import type { Owner } from './own-ids.ts';
import { orderSessionKeyFor } from './session-key.ts';
import { scrubAdditionalFields } from '../scrub.ts';

export interface EvaluateAnswer {
  statusCode: number;
  body: Record<string, unknown>;
  replayed: boolean;
}

type Decision = Pick<RealtimeAttempt, 'status' | 'reason' | 'challenge' | 'confirmationId'> & { attempt?: RealtimeAttempt['row'] };

function challengeMethod(reason: string): '3ds' | 'cvv' {
  return reason === 'authentication_required' ? '3ds' : 'cvv';
}

async function decideCit(deps: OrderDeps, req: EvaluateRequest, merchantId: string, orderSessionKey: string, cardToken: string): Promise<Decision> {
  const tx = req.transaction;
  const c = classifyDecline({
    responseCodeSource: tx.responseCodeSource, responseCode: tx.responseCode, responseDescription: tx.responseDescription ?? null,
    responseSubStatus: tx.responseSubStatus ?? null, cardBrand: req.paymentMethod.cardBrand, at: new Date(tx.timestampUtc),
  });
  if (c.class === 'hard') return { status: 'DECLINED', reason: c.reason, challenge: undefined, confirmationId: null };
  if (c.class === 'data') return { status: 'CHALLENGE', reason: c.reason, challenge: challengeMethod(c.reason), confirmationId: null };
  const a = await attemptNow(deps, {
    idempotencyKey: `${orderSessionKey}:1`, reference: orderSessionKey, merchantId, cardToken,
    amount: tx.amount, currency: tx.currency, isMIT: false, timezoneUtcOffset: tx.timezoneUtcOffset, order: orderFacts(req),
  }, 1, 'cit_realtime', req.paymentMethod.cardBrand);
  return { ...a, attempt: a.row };
}

function validated(body: unknown, deps: OrderDeps): { req: EvaluateRequest; warnings: unknown[] } {
  const v = validateEvaluate(body, { mode: deps.mode });
  if (!v.ok) throw new RescuedError('ERR_MODEL_INVALID', undefined, v.errors);
  if (v.value.isDeclined !== true) throw new RescuedError('ERR_API_NOT_DECLINED', undefined, [{ field: 'isDeclined', code: 'ERR_API_NOT_DECLINED', message: 'must be true: only declined transactions can be rescued' }]);
  return { req: v.value, warnings: v.warnings };
}

function idempotencyMismatch(): RescuedError {
  return new RescuedError('ERR_API_IDEMPOTENCY_MISMATCH', undefined, [{ field: 'idempotencyKey', code: 'ERR_API_IDEMPOTENCY_MISMATCH', message: 'was already used with a different request body' }]);
}

function duplicateOrderId(): RescuedError {
  return new RescuedError('ERR_API_DUPLICATE_ORDER_ID', undefined, [{ field: 'orderId', code: 'ERR_API_DUPLICATE_ORDER_ID', message: 'orderId was already used by another order of this merchant' }]);
}

export async function evaluate(deps: OrderDeps, owner: Owner, body: unknown, requestHash: string): Promise<EvaluateAnswer> {
  const { req, warnings } = validated(body, deps);
  const { merchantId } = owner;
  await deps.ownIds(owner, { mid: req.mid, siteId: req.siteId });
  const key = req.idempotencyKey.toLowerCase();
  const now = deps.clock.now();
  // The card look-up does not depend on the claim: both go to the database at once. Tokenizing
  // a full number for a request that turns out to be a replay stores nothing new (one row per card).
  const edge = deps.vault.tokenizeAtEdge(merchantId, req.paymentMethod);
  edge.catch(() => {}); // awaited below when the request goes on; a replay does not need it
  const claim = await claimIdempotency(deps.db, {
    merchantId, key, route: 'evaluate', requestHash, now, orderId: req.orderId,
    expiresAt: new Date(now.getTime() + deps.settings.idempotencyTtlSeconds * 1000),
    staleBefore: new Date(now.getTime() - deps.settings.idempotencyInFlightSeconds * 1000),
  });
  if (claim.kind === 'mismatch') throw idempotencyMismatch();
  if (claim.kind === 'in_flight') throw new RescuedError('ERR_API_IDEMPOTENCY_IN_FLIGHT');
  if (claim.kind === 'replay') return { statusCode: claim.statusCode, body: claim.response as Record<string, unknown>, replayed: true };
  if (claim.orderIdTaken) {
    // Nothing was decided: the key is free again (a retry meets the same orderId and this answer).
    await releaseIdempotency(deps.db, merchantId, key);
    throw duplicateOrderId();
  }
  try {
    return await decideAndStore(deps, merchantId, req, warnings, key, now, await edge);
  } catch (err) {
    await releaseIdempotency(deps.db, merchantId, key).catch((e: unknown) => deps.log.warn({ err: e }, 'idempotency key not released'));
    throw err;
  }
}

type Edge = Awaited<ReturnType<OrderDeps['vault']['tokenizeAtEdge']>>;

async function decideAndStore(deps: OrderDeps, merchantId: string, req: EvaluateRequest, warnings: unknown[], key: string, now: Date, edge: Edge): Promise<EvaluateAnswer> {
  const emailProblem = checkSandboxPayerEmail(edge.testCard, req.payer.email);
  if (emailProblem) throw new RescuedError('ERR_VAULT_PAYER_EMAIL_REQUIRED', undefined, [emailProblem]);
  const id = orderSessionKeyFor(merchantId, key);
  const kind = req.isMIT ? 'MIT' : 'CIT';
  const cardToken = edge.card.token;
  const d: Decision | undefined = req.isMIT ? undefined : await decideCit(deps, req, merchantId, id, cardToken);
  const status = d ? d.status : 'SUBMITTED';
  const response: Record<string, unknown> = {
    success: true, result: 'Success', status, orderSessionKey: id,
    ...(req.senseKey !== undefined ? { senseKey: req.senseKey } : {}),
    ...(d?.reason ? { reason: d.reason } : {}),
    ...(d?.challenge ? { challenge: d.challenge } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
  const final = status === 'APPROVED' || status === 'DECLINED';
  const order: NewApiOrder = {
    id, merchantId, orderId: req.orderId, idempotencyKey: key, kind, status, statusReason: d?.reason ?? null,
    amount: req.transaction.amount, currency: req.transaction.currency, cardToken, cardBrand: req.paymentMethod.cardBrand,
    cardBin: edge.card.bin, cardLast4: edge.card.last4,
    expiresAt: req.isMIT ? new Date(req.expiryDateUtc!) : status === 'CHALLENGE' ? new Date(now.getTime() + deps.settings.challengeTtlSeconds * 1000) : null,
    declineCode: req.transaction.responseCode, declineSource: req.transaction.responseCodeSource,
    request: { ...scrubAdditionalFields(req), paymentMethod: edge.paymentMethod },
    nextAttemptAt: req.isMIT ? now : null, attemptCount: d?.attempt ? 1 : 0, confirmationId: d?.confirmationId ?? null,
    createdAt: now, finishedAt: final ? deps.clock.now() : null,
  };
  if (!(await insertApiOrder(deps.db, order, d?.attempt, { key, statusCode: 200, response }))) {
    // An order with this very orderSessionKey: the key was used before and its record has
    // since been pruned; the processor answered that order's attempt again, which stands.
    if (await findOrder(deps.db, merchantId, id)) throw idempotencyMismatch();
    // A concurrent request took the orderId first: this one's approval must not stand.
    if (d?.confirmationId) await voidQuietly(deps, id, d.confirmationId, req.transaction.currency, d.attempt?.accountId ?? null);
    throw duplicateOrderId();
  }
  decisions.inc({ kind, status });
  return { statusCode: 200, body: response, replayed: false };
}

async function voidQuietly(deps: OrderDeps, id: string, processorRef: string, currency: string, accountId: string | null): Promise<void> {
  try {
    await deps.processor?.void({ idempotencyKey: `${id}:void`, reference: id, processorRef, currency, accountId });
  } catch (err) {
    deps.log.error({ err, orderSessionKey: id }, 'void of a duplicate order\'s approval failed');
  }
}
