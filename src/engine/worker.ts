// One attempt of one claimed order: its attempt row was committed by the claim (claim.ts),
// so the processor is called with `<orderSessionKey>:<attemptNo>`, and the answer goes to the
// recorder, which writes it with the other answers that arrived together (recorder.ts). A
// crash anywhere leaves either no attempt row (nothing was sent) or an in-flight one whose key
// the retry reuses, so the processor's stored answer is used and nothing is charged twice.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { markVoided } from '../db/queries/attempts.ts';
import { dropUnsentAttempts, markUnknown, restartAttempt, type Claimed } from '../db/queries/claim-attempts.ts';
import { lockOrder } from '../db/queries/claim-orders.ts';
import { moveOrder } from '../db/queries/move-order.ts';
import { assertTransition } from '../domain/states.ts';
import type { Logger } from '../log.ts';
import { attemptsTotal } from '../metrics.ts';
import { RescuedError } from '../errors.ts';
import { GatewayError } from '../processors/connector.ts';
import { orderFacts } from '../processors/order-facts.ts';
import type { AuthorizeRequest, ChargeCredential, Processor, ProcessorResponse } from '../processors/types.ts';
import { chargeToken, currentUpdate } from '../domain/card-updates.ts';
import type { Answered, Recorded } from './recorder.ts';

export interface WorkerCtx {
  db: Db;
  processor: Processor;
  clock: Clock;
  log: Logger;
  /** Runs a processor call in the processor's queue (its concurrency and rate). */
  atProcessor: <T>(call: () => Promise<T>) => Promise<T>;
  /** Records an answer (grouped with the others that arrive together). */
  record: (a: Answered) => Promise<Recorded>;
  /** Testing only: a pause between the processor's answer and its recording. */
  pauseAfterAnswerMs: number;
  /** After a processor failure (no answer), the order is looked at again this much later. */
  errorRetryMs: number;
  /** An attempt whose outcome is unknown is reconciled this much later ... */
  reconcileAfterMs: number;
  /** ... and parks its order when still unknown this long after it became so. */
  reconcileTimeoutMs: number;
  /** A look-up that finds no charge is believed only this long after the call was sent (2 × the call timeout). */
  lookupSettleMs: number;
  /** Writes a new attempt's account on it before the call (grouped with others). */
  pin: (p: { id: string; accountId: string; route: string }) => Promise<void>;
}

export type AttemptOutcome = 'approved' | 'declined' | 'voided' | 'error' | 'unknown' | 'skipped';

interface RequestView {
  transaction?: { timezoneUtcOffset?: number | null };
}

/** Runs the attempt of a claimed (PROCESSING) order; 'skipped' when its answer was not recorded here. */
export async function runAttempt(ctx: WorkerCtx, claimed: Claimed): Promise<AttemptOutcome> {
  const { order, attempt } = claimed;
  const log = ctx.log.child({ orderSessionKey: order.id });
  const started = performance.now();
  const credential = chargeCredential(order);
  const request: AuthorizeRequest = {
    idempotencyKey: attempt.idempotencyKey, reference: order.id, merchantId: order.merchantId, cardToken: chargeToken(order),
    amount: attempt.amount, currency: attempt.currency, isMIT: true, timezoneUtcOffset: (order.request as RequestView | null)?.transaction?.timezoneUtcOffset ?? null,
    order: orderFacts(order.request), accountId: attempt.accountId, ...(credential ? { credential } : {}),
  };
  let answer: ProcessorResponse;
  let route: string | undefined;
  try {
    // An attempt sent before (its outcome unknown, or its instance died) is reconciled first.
    const found = claimed.fresh ? null : await reconcile(ctx, claimed);
    if (!found && !attempt.accountId) route = await pin(ctx, claimed, request);
    answer = found ?? (await ctx.atProcessor(() => ctx.processor.authorize(request)));
  } catch (err) {
    return failed(ctx, claimed, err, log);
  }
  const latencyMs = Math.round(performance.now() - started);
  if (ctx.pauseAfterAnswerMs > 0) {
    log.info({ attemptNo: attempt.attemptNo, pauseMs: ctx.pauseAfterAnswerMs }, 'processor answered; pausing before recording (engine.pauseAfterAnswerMs)');
    await sleep(ctx.pauseAfterAnswerMs);
  }
  const recorded = await ctx.record({ order, attempt, answer, latencyMs, ...(route ? { route } : {}) });
  const outcome: AttemptOutcome = recorded === 'void' ? await voidApproval(ctx, claimed, answer) : recorded;
  if (outcome !== 'skipped') attemptsTotal.inc({ outcome });
  log.debug({ attemptNo: attempt.attemptNo, outcome, responseCode: answer.responseCode, replayed: answer.replayed, latencyMs }, 'attempt finished');
  return outcome;
}

/** How the order's updated card is charged (src/domain/card-updates.ts); undefined: the order's own card. */
function chargeCredential(order: Claimed['order']): ChargeCredential | undefined {
  const u = order.credential ? currentUpdate(order.cardUpdates) : undefined;
  if (!u) return undefined;
  if (u.source !== 'account_updater') return { kind: 'vault' };
  return { kind: 'gateway', ...(u.gatewayReference ? { gatewayReference: u.gatewayReference } : {}), ...(u.expMonth ? { expMonth: u.expMonth } : {}), ...(u.expYear ? { expYear: u.expYear } : {}) };
}

/**
 * Chooses the new attempt's account and writes it on the attempt before the call: a crash
 * after the call then finds the account that may have charged, whatever the routing says
 * by the time of the restart. The built-in sandbox needs no pin (it is not an account).
 */
async function pin(ctx: WorkerCtx, claimed: Claimed, request: AuthorizeRequest): Promise<string | undefined> {
  if (!ctx.processor.route) return undefined;
  const r = await ctx.processor.route(request);
  if (r.accountId) {
    await ctx.pin({ id: claimed.attempt.id, accountId: r.accountId, route: r.route });
    request.accountId = r.accountId;
  }
  return r.route;
}

/**
 * The answer of an attempt sent before, when the account can tell it: an account that dedupes
 * keys answers the same call again (null here: the caller sends it), one that does not is
 * asked what it charged under the key first, and only a "nothing" lets the call go again.
 */
async function reconcile(ctx: WorkerCtx, claimed: Claimed): Promise<ProcessorResponse | null> {
  const { order, attempt } = claimed;
  if (!attempt.accountId || !ctx.processor.reconcileBy || !ctx.processor.lookup) return null;
  if ((await ctx.processor.reconcileBy(attempt.accountId, order.merchantId)) === 'replay') return null;
  const found = await ctx.atProcessor(() => ctx.processor.lookup!({ idempotencyKey: attempt.idempotencyKey, reference: order.id, merchantId: order.merchantId, accountId: attempt.accountId }));
  ctx.log.info({ orderSessionKey: order.id, attemptNo: attempt.attemptNo, found: found !== null }, 'attempt reconciled by look-up at the gateway');
  if (found) return found;
  // "Nothing charged" is only believed once the gateway cannot still be working on the last
  // send: a sale it is still processing is not listed yet (seen in the gateways e2e test with
  // a short reconcileAfterMs: the sale went out twice). Until then the outcome stays unknown.
  const sinceSentMs = ctx.clock.now().getTime() - attempt.startedAt.getTime();
  if (sinceSentMs < ctx.lookupSettleMs) throw new GatewayError('unknown', `no charge found ${sinceSentMs} ms after the call was sent; the gateway may still be processing it (believed after ${ctx.lookupSettleMs} ms)`);
  // Sent again now: the next look-up waits for this send to settle.
  await restartAttempt(ctx.db, attempt.id, ctx.clock.now());
  return null;
}

/** No answer about the card: what was sent decides what happens to the order. */
async function failed(ctx: WorkerCtx, claimed: Claimed, err: unknown, log: WorkerCtx['log']): Promise<AttemptOutcome> {
  const { order, attempt } = claimed;
  const now = ctx.clock.now();
  // An attempt sent before (claimed again, not fresh) may have charged whatever fails now: a
  // look-up refused or a replay answered 429 says nothing about that first call. Only a fresh
  // attempt whose call surely charged nothing may be forgotten.
  const said = err instanceof GatewayError ? err.kind : err instanceof RescuedError ? 'rejected' : 'unknown';
  const kind = claimed.fresh ? said : 'unknown';
  if (kind === 'unknown') {
    // It may have charged: nothing new for this order until the outcome is known.
    const since = attempt.unknownSince ?? now;
    await markUnknown(ctx.db, attempt.id, (err as GatewayError).accountId ?? attempt.accountId, now);
    if (now.getTime() - since.getTime() >= ctx.reconcileTimeoutMs) {
      await park(ctx, order.id);
      log.error({ err, attemptNo: attempt.attemptNo, unknownSince: since.toISOString() }, 'attempt outcome still unknown after processor.reconcileTimeoutMs: order parked for the operator');
    } else {
      await release(ctx, order.id, ctx.reconcileAfterMs);
      log.warn({ err, attemptNo: attempt.attemptNo }, 'processor call outcome unknown; the attempt is reconciled before anything else');
    }
    attemptsTotal.inc({ outcome: 'unknown' });
    return 'unknown';
  }
  // Nothing was charged (not sent, or refused without judging the card): the attempt is
  // forgotten, so it counts toward no network rule, and the order tries again later.
  await forget(ctx, order.id, attempt.id);
  log.warn({ err, attemptNo: attempt.attemptNo, kind }, 'processor call failed without an answer about the card; the order tries again later');
  attemptsTotal.inc({ outcome: 'error' });
  return 'error';
}

/** Back to the queue `afterMs` later, the in-flight attempt kept for its key. */
async function release(ctx: WorkerCtx, id: string, afterMs: number): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const cur = await lockOrder(tx, id);
    if (cur?.status !== 'PROCESSING') return;
    assertTransition('PROCESSING', 'PENDING');
    await moveOrder(tx, id, { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + afterMs) }, now);
  });
}

/** Back to the queue later without the attempt, which was never charged. */
async function forget(ctx: WorkerCtx, id: string, attemptId: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const cur = await lockOrder(tx, id);
    if (cur?.status !== 'PROCESSING') return;
    await dropUnsentAttempts(tx, [attemptId]);
    assertTransition('PROCESSING', 'PENDING');
    await moveOrder(tx, id, { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + ctx.errorRetryMs) }, now);
  });
}

/**
 * An attempt nobody could reconcile: the order waits for the operator, PENDING with no next
 * attempt (no claim takes it, no expiry ends it while its attempt is in flight).
 */
async function park(ctx: WorkerCtx, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const cur = await lockOrder(tx, id);
    if (cur?.status !== 'PROCESSING') return;
    assertTransition('PROCESSING', 'PENDING');
    await moveOrder(tx, id, { status: 'PENDING', nextAttemptAt: null, statusReason: 'unreconciled' }, now);
  });
}

/**
 * Voids an approval recorded on an order that was cancelled meanwhile. A crash before this
 * leaves the attempt 'approved' with reason to_be_voided on a final order: the void sweep
 * (sweeps.ts) sends it again, and the void's key is fixed, so that is safe.
 */
export async function voidApproval(ctx: Pick<WorkerCtx, 'db' | 'processor' | 'atProcessor'>, claimed: Pick<Claimed, 'order' | 'attempt'>, answer: Pick<ProcessorResponse, 'processorRef' | 'accountId'>): Promise<AttemptOutcome> {
  const { order, attempt } = claimed;
  const voided = await ctx.atProcessor(() => ctx.processor.void({ idempotencyKey: `${attempt.idempotencyKey}:void`, reference: order.id, processorRef: answer.processorRef, currency: attempt.currency, accountId: answer.accountId ?? attempt.accountId }));
  await markVoided(ctx.db, attempt.id, voided.approved ? 'voided_after_cancel' : 'void_refused', voided.approved);
  return 'voided';
}
