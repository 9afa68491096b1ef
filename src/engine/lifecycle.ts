// The order lifecycle of an MIT (DESIGN.md §2 "Statuses"): plan from a decline → PENDING or
// EXPIRED; an approval → APPROVED. Every move goes through assertTransition and carries its
// outbox event, written in the same transaction as the move (by whoever applies it: a group of
// attempts in recorder.ts, a batch of new orders in submitted.ts, a claim's dropped orders in
// claim.ts).
import type { OrderMove } from '../db/queries/move-order.ts';
import { declinedAtOf } from '../db/prior-attempts.ts';
import type { WorkOrder } from '../db/queries/claim-orders.ts';
import { assertTransition, type Status } from '../domain/states.ts';
import type { OrderEventInput, OrderEventType } from '../webhooks/outbox.ts';
import { classifyDecline, type Classification } from '../declines/classify.ts';
import { requestTexts, resolveOriginalDecline } from '../declines/original.ts';
import { answerClassification, type AnswerCodes } from '../declines/answer-decline.ts';
import type { Histories } from './history.ts';
import type { MerchantModel, Plan } from './plan-types.ts';
import type { ModelSource } from './model-cache.ts';
import type { LearnedInput } from './learning/estimate.ts';
import { binOf, outcomeOf, type LearnedSource } from './learning/source.ts';
import type { OutcomeRow } from '../db/queries/learned-timing.ts';
import type { DbOrTx } from '../db/client.ts';
import { plan } from './planner.ts';
import type { Rules } from './rules.ts';
import { awaitingMove, awaitingRecord, awaitsCard, type AwaitSource } from './card-update.ts';
import { chargeBrand } from '../domain/card-updates.ts';


export interface LifecycleCtx {
  rules: Rules;
  /** The merchant's model (hours and days that approve), or null. */
  models: ModelSource;
  /** The learned-timing table (engine.learning); absent: the static model alone. */
  learned?: LearnedSource;
  /** Events say IsTestMode in sandbox mode. */
  testMode: boolean;
  /** Whether the merchant's orders wait for an updated card (docs/engine.md "Card updates"); absent: never. */
  awaitCard?: AwaitSource;
}

/** Whether this order waits for an updated card when its decline says the card must change. */
export async function awaitsFor(ctx: LifecycleCtx, db: DbOrTx, order: WorkOrder): Promise<boolean> {
  return order.expiresAt !== null && ctx.awaitCard !== undefined && (await ctx.awaitCard(db, order.merchantId));
}

interface RequestView {
  transaction?: { timezoneUtcOffset?: number | null; timestampUtc?: string; merchantAdviceCode?: string | null };
}

const transactionOf = (order: WorkOrder) => (order.request as RequestView | null)?.transaction ?? {};

/** The merchant's original decline, as the order carries it: the one resolution (src/declines/original.ts). */
export function originalDecline(order: WorkOrder, rules: Rules, at: Date): Classification {
  // The original decline's Mastercard advice (transaction.merchantAdviceCode): 03 and 21 stop
  // at once, 24–30 delay the first retry.
  const advice = transactionOf(order).merchantAdviceCode ?? null;
  return resolveOriginalDecline(
    { declineSource: order.declineSource, declineCode: order.declineCode, cardBrand: order.cardBrand, ...requestTexts(order.request), merchantAdviceCode: advice, at },
    { rules },
  );
}

/** A decline the processor returned (ISO 8583 codes with the Mastercard advice code). */
export function processorDecline(order: WorkOrder, source: string, code: string, adviceCode: string | undefined, rules: Rules, at: Date): Classification {
  return classifyDecline({ responseCodeSource: source, responseCode: code, merchantAdviceCode: adviceCode ?? null, cardBrand: order.cardBrand, at }, { rules });
}

/** The decline of a processor's answer (a gateway's own code through that gateway's table). */
export function answerDecline(order: WorkOrder, fallbackSource: string, answer: AnswerCodes, rules: Rules, at: Date): Classification {
  return answerClassification(answer, fallbackSource, { cardBrand: order.cardBrand, at }, { rules });
}

/** The learned table's family of an order: its original decline's canonical reason. */
export function familyOf(order: WorkOrder, rules: Rules): string {
  return originalDecline(order, rules, order.createdAt).reason;
}

/** The planner's learned input for an order, or null when learning is off. */
export async function learnedFor(ctx: LifecycleCtx, db: DbOrTx, order: WorkOrder): Promise<LearnedInput | null> {
  const table = ctx.learned ? await ctx.learned.table(db, order.merchantId) : null;
  return table && { table, family: familyOf(order, ctx.rules), bin: binOf(order) || null };
}

/** What a recorded attempt adds to the learned table (nothing unless engine.learning is on). */
export function learnedOutcomes(ctx: LifecycleCtx, done: Array<{ order: WorkOrder; at: Date; approved: boolean }>): OutcomeRow[] {
  if (ctx.learned?.mode !== 'on') return [];
  return done.map((d) => outcomeOf(d.order, familyOf(d.order, ctx.rules), d.at, d.approved));
}

export function planOrder(order: WorkOrder, decline: Classification, h: Histories, rules: Rules, now: Date, model: MerchantModel | null = null, learned: LearnedInput | null = null): Plan {
  // An MIT always has expiryDateUtc (validation requires it); a missing one plans as already due.
  const expiry = order.expiresAt ?? now;
  return plan({
    order: {
      id: order.id, amount: order.amount, currency: order.currency, cardBrand: chargeBrand(order), expiryDateUtc: expiry,
      timezoneUtcOffset: transactionOf(order).timezoneUtcOffset ?? null, createdAt: order.createdAt, isMIT: true,
      declinedAt: declinedAtOf(transactionOf(order).timestampUtc, order.createdAt),
    },
    decline,
    attempts: h.attempts,
    cardAttempts: h.cardAttempts,
    model,
    learned,
    rules,
    now,
  });
}

type EventExtra = { reason?: string | null; attempts: number; confirmationId?: string | null } & Pick<OrderEventInput, 'decline' | 'awaitingUntil' | 'card' | 'recoveredBy'>;

export function event(order: WorkOrder, ctx: Pick<LifecycleCtx, 'testMode'>, type: OrderEventType, status: Status, at: Date, extra: EventExtra): OrderEventInput {
  const { reason, attempts, confirmationId, ...more } = extra;
  return {
    type, merchantId: order.merchantId, orderSessionKey: order.id, orderId: order.orderId, status, amount: order.amount, currency: order.currency,
    isTestMode: ctx.testMode, at, reason: reason ?? null, attempts, confirmationId: confirmationId ?? null, ...more,
  };
}

/** An order's move with the event it owes (final moves), built before any statement runs. */
export interface Move {
  move: OrderMove;
  event?: OrderEventInput;
  /** An event written before `event` (order.card_updated, when the gateway changed the card during the call). */
  also?: OrderEventInput;
}

/**
 * A plan's outcome for an order in `from`: PENDING until the planned time, or EXPIRED with the
 * stop reason; or, when `awaitCard` and the decline means the card must change, PENDING with
 * no planned attempt, waiting for an updated card (order.card_update_needed).
 */
export function planMove(ctx: LifecycleCtx, order: WorkOrder, from: Status, p: Plan, now: Date, attemptCount: number, decline?: Classification, awaitCard = false): Move {
  if (p.action === 'retry') {
    assertTransition(from, 'PENDING');
    return { move: { status: 'PENDING', planReason: p.evidence ?? p.reason, nextAttemptAt: p.at, attemptCount } };
  }
  const reason = p.detail ? `${p.reason}: ${p.detail}` : p.reason;
  if (decline && awaitsCard(p, decline, awaitCard)) {
    assertTransition(from, 'PENDING');
    const waiting = awaitingRecord(decline, reason, now);
    return {
      move: awaitingMove(waiting, attemptCount),
      event: event(order, ctx, 'order.card_update_needed', 'PENDING', now, { reason, attempts: attemptCount, decline: waiting.decline, awaitingUntil: order.expiresAt }),
    };
  }
  assertTransition(from, 'EXPIRED');
  return {
    move: { status: 'EXPIRED', statusReason: reason, planReason: p.reason, nextAttemptAt: null, attemptCount, finishedAt: now },
    event: event(order, ctx, 'order.expired', 'EXPIRED', now, { reason, attempts: attemptCount }),
  };
}

export function approveMove(ctx: LifecycleCtx, order: WorkOrder, confirmationId: string, now: Date, attemptCount: number, recoveredBy: string = 'retry'): Move {
  assertTransition('PROCESSING', 'APPROVED');
  return {
    move: { status: 'APPROVED', statusReason: 'approved', nextAttemptAt: null, attemptCount, confirmationId, finishedAt: now, recoveredBy },
    event: event(order, ctx, 'order.completed', 'APPROVED', now, { reason: 'approved', attempts: attemptCount, confirmationId, recoveredBy }),
  };
}
