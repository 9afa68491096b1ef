// Records the processor's answers of a group of attempts in ONE transaction. The common case
// (every order still PROCESSING under this instance's lease) costs one statement that moves
// the orders and finishes their attempts, sent with the outbox insert, plus one read of the
// histories when some answers are declines: about four round trips per group, against eight
// statements per attempt before. When any guard fails, the transaction is rolled back and
// the group is recorded under row locks: an order cancelled (or expired) meanwhile keeps its
// status and an approval on it is voided after the commit; one that went back to the queue
// (lost lease) is skipped, and the next claim reuses the attempt's key and records the same
// stored answer then.
import type { Clock } from '../clock.ts';
import type { Db, Transaction as Tx } from '../db/client.ts';
import type { AttemptResult } from '../db/queries/attempts.ts';
import { attemptsOfCards, ordersOfCards } from '../db/queries/card-histories.ts';
import type { ClaimedAttempt } from '../db/queries/claim-attempts.ts';
import type { WorkOrder } from '../db/queries/claim-orders.ts';
import { finishAndMove, finishAttempts, lockOrders, moveOrders, type GuardedMove } from '../db/queries/record-attempts.ts';
import type { Status } from '../domain/states.ts';
import type { ProcessorResponse } from '../processors/types.ts';
import { enqueueOrderEvents, type OrderEventInput } from '../webhooks/outbox.ts';
import type { Classification } from '../declines/classify.ts';
import { tableClassOf } from '../declines/classify.ts';
import { CARD_WINDOW_MS, cardDeclines, declinesByCard, toRecord, type Histories } from './history.ts';
import { cascade, optIns } from './cascade.ts';
import { wakeAfterAnswers } from './card-busy.ts';
import { answerDecline, approveMove, awaitsFor, learnedFor, learnedOutcomes, planMove, planOrder, type LifecycleCtx, type Move } from './lifecycle.ts';
import { tryNewCard, updaterNews, withNews } from './card-update-moves.ts';
import { needsNewCard } from '../declines/card-change.ts';
import { cardUpdatesOf, chargeKey, recoveryCause } from '../domain/card-updates.ts';
import type { OutcomeCounter } from './learning/counter.ts';

export interface RecorderCtx extends LifecycleCtx {
  db: Db;
  clock: Clock;
  processorName: string;
  /** This instance's lease owner name. */
  owner: string;
  /** Where recorded outcomes are counted for the learned table (engine.learning on). */
  counter?: OutcomeCounter;
}

/** One attempt with the processor's answer, waiting to be recorded. */
export interface Answered {
  order: WorkOrder;
  attempt: ClaimedAttempt;
  answer: ProcessorResponse;
  latencyMs: number;
  /** Why the attempt went to its account, when the router decided it before the call. */
  route?: string;
}

/** 'void': an approval recorded on an order cancelled meanwhile; the caller voids it. */
export type Recorded = 'approved' | 'declined' | 'void' | 'skipped';

type Kind = 'approve' | 'void' | 'declined_final' | 'replan';

interface Decided {
  index: number;
  cur: WorkOrder;
  status: Status;
  kind: Kind;
  decline?: Classification;
}


/** Thrown inside the fast path's transaction to roll it back. */
class GuardFailed extends Error {}

export async function recordGroup(ctx: RecorderCtx, items: Answered[]): Promise<Recorded[]> {
  let recorded: Recorded[];
  try {
    recorded = await recordClaimed(ctx, items);
  } catch (err) {
    if (!(err instanceof GuardFailed)) throw err;
    recorded = await recordLocked(ctx, items);
  }
  countOutcomes(ctx, items, recorded);
  // The card's other orders waiting for this answer (claim.ts, one attempt per card) go next.
  await wakeAfterAnswers(ctx.db, items.map((i) => ({ merchantId: i.order.merchantId, cardToken: chargeKey(i.order) })), ctx.clock.now());
  return recorded;
}

/** The group's outcomes handed to the learned table's counter (engine.learning on): no statement here. */
function countOutcomes(ctx: RecorderCtx, items: Answered[], recorded: Recorded[]): void {
  if (!ctx.counter) return;
  const done = items.flatMap((item, i) => (recorded[i] === 'skipped' ? [] : [{ order: item.order, at: item.attempt.startedAt, approved: recorded[i] !== 'declined' }]));
  ctx.counter.add(learnedOutcomes(ctx, done));
}

/** The fast path: decided from the orders as claimed, applied only if every guard holds. */
async function recordClaimed(ctx: RecorderCtx, items: Answered[]): Promise<Recorded[]> {
  const now = ctx.clock.now();
  const decided = items.map((item, index) => decide(ctx, item, item.order, index, now)!);
  const answered = new Map(items.map((item, i) => [item.attempt.id, result(item, decided[i]!, now)]));
  // Read before the transaction, with this group's answers laid over its own attempts: what
  // the same read after recording them would return.
  const histories = await replanHistories(ctx.db, decided.filter((d) => d.kind === 'replan').map((d) => d.cur), now, answered);
  const moves: GuardedMove[] = [];
  const events: OrderEventInput[] = [];
  for (const d of decided) {
    const m = await moveOf(ctx, ctx.db, items[d.index]!, d, histories, now);
    moves.push({ id: d.cur.id, from: 'PROCESSING', owner: ctx.owner, fromCredential: d.cur.credential ?? '', ...m.move });
    if (m.also) events.push(m.also);
    if (m.event) events.push(m.event);
  }
  const results = items.map((item) => ({ id: item.attempt.id, orderId: item.order.id, ...answered.get(item.attempt.id)! }));
  await ctx.db.transaction(async (tx) => {
    // Sent together (one connection pipelines them); the events are rolled back with the rest.
    const [done] = await Promise.all([finishAndMove(tx, results, moves, now), enqueueOrderEvents(tx, events)]);
    if (done.moved !== items.length || done.finished !== items.length) throw new GuardFailed();
  });
  return decided.map((d) => (d.kind === 'approve' ? 'approved' : 'declined'));
}

/** The careful path: the orders locked and read again, each recorded as it now stands. */
async function recordLocked(ctx: RecorderCtx, items: Answered[]): Promise<Recorded[]> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const current = await lockOrders(tx, items.map((i) => i.order.id));
    const outcomes: Recorded[] = items.map(() => 'skipped');
    const decided: Decided[] = [];
    const results: Array<AttemptResult & { id: string }> = [];
    items.forEach((item, index) => {
      const cur = current.get(item.order.id);
      const d = cur && decide(ctx, item, cur, index, now);
      if (!d) return;
      decided.push(d);
      results.push({ id: item.attempt.id, ...result(item, d, now) });
    });
    // An attempt someone else already recorded (an instance that lost the lease) is skipped whole.
    const finished = await finishAttempts(tx, results);
    const recorded = decided.filter((d) => finished.has(items[d.index]!.attempt.id));
    const histories = await replanHistories(tx, recorded.filter((d) => d.kind === 'replan').map((d) => d.cur), now);
    const moves: GuardedMove[] = [];
    const events: OrderEventInput[] = [];
    for (const d of recorded) {
      const m = await moveOf(ctx, tx, items[d.index]!, d, histories, now);
      moves.push({ id: d.cur.id, from: d.status, ...(d.status === 'PROCESSING' ? { owner: ctx.owner } : {}), ...m.move });
      if (m.also) events.push(m.also);
      if (m.event) events.push(m.event);
      outcomes[d.index] = d.kind === 'approve' ? 'approved' : d.kind === 'void' ? 'void' : 'declined';
    }
    const moved = await moveOrders(tx, moves, now);
    // The rows are locked and were read in this transaction: a guard that fails is a bug, and
    // the whole group is rolled back rather than recorded half.
    if (moved.size !== moves.length) throw new Error(`recording moved ${moved.size} of ${moves.length} orders`);
    await enqueueOrderEvents(tx, events);
    return outcomes;
  });
}

function decide(ctx: RecorderCtx, item: Answered, cur: WorkOrder, index: number, now: Date): Decided | undefined {
  const status = cur.status as Status;
  if (status === 'PROCESSING' && cur.leaseOwner !== ctx.owner) return undefined; // another instance holds it now
  if (status !== 'PROCESSING' && status !== 'CANCELLED' && status !== 'EXPIRED') return undefined;
  const { answer } = item;
  if (answer.approved) return { index, cur, status, kind: status === 'PROCESSING' ? 'approve' : 'void' };
  const decline = answerDecline(cur, ctx.processorName, answer, ctx.rules, now);
  return { index, cur, status, kind: status === 'PROCESSING' ? 'replan' : 'declined_final', decline };
}

function result(item: Answered, d: Decided, now: Date): AttemptResult {
  const { answer } = item;
  const base = {
    responseCode: answer.responseCode, adviceCode: answer.adviceCode ?? null, processorRef: answer.processorRef, latencyMs: item.latencyMs, finishedAt: now,
    // A pinned call (a reconciliation) keeps the reason the account was chosen for the attempt.
    accountId: answer.accountId ?? null, route: item.route ?? (answer.route === 'pinned' ? null : answer.route) ?? null, rawCode: answer.rawCode ?? null, rawMessage: answer.rawMessage ?? null,
    networkTransactionId: answer.networkTransactionId ?? null,
  };
  if (d.kind === 'approve') return { ...base, status: 'approved', declineClass: null, reason: null };
  // Cancelled (or expired) while in flight: recorded now, voided after the commit (the void is
  // a processor call; no transaction waits on it). A crash in between leaves it findable.
  if (d.kind === 'void') return { ...base, status: 'approved', declineClass: null, reason: 'to_be_voided' };
  return { ...base, status: 'declined', declineClass: tableClassOf(d.decline!), reason: d.decline!.reason };
}

async function moveOf(ctx: RecorderCtx, tx: Tx | Db, item: Answered, d: Decided, histories: Map<string, Histories>, now: Date): Promise<Move> {
  const attemptCount = d.cur.attemptCount + 1;
  // The gateway's account updater changed the card during the call (docs/engine.md "Card updates").
  const updater = item.answer.cardUpdate ? updaterNews(ctx, d.cur, item.answer.cardUpdate, now, attemptCount) : undefined;
  const cur = updater ? { ...d.cur, ...updater.fields } : d.cur;
  if (d.kind === 'approve') {
    const cause = updater?.switched ? 'account_updater' : recoveryCause(cur, chargeKey(item.order));
    return withNews(approveMove(ctx, cur, item.answer.processorRef, now, attemptCount, cause), updater);
  }
  if (d.kind !== 'replan') return { move: { status: d.status, attemptCount } };
  // A new credential whose first attempt is still to come: made at once (the claim checks the
  // networks' rules for it). The updater's new card after the old card's card-must-change
  // decline, or a card the merchant sent while this attempt was in flight.
  if ((updater?.switched && needsNewCard(d.decline!)) || chargeKey(cur) !== chargeKey(item.order)) return withNews(tryNewCard(now, attemptCount), updater);
  const plan = planOrder(cur, d.decline!, histories.get(d.cur.id)!, ctx.rules, now, await ctx.models(tx, cur.merchantId), await learnedFor(ctx, tx, cur));
  // A card that may no longer be charged may hand the order to the payer's next card (cascade.ts).
  const cascaded = await cascade(tx, optIns(tx), cur, 'PROCESSING', plan, d.decline!, now, attemptCount);
  return withNews(cascaded ?? planMove(ctx, cur, 'PROCESSING', plan, now, attemptCount, d.decline, await awaitsFor(ctx, tx, cur)), updater);
}

/**
 * The planner's histories of each order (its attempts, the card's attempts and the card's
 * orders' declines: two statements for the group), read after this group's attempts
 * were finished, or before with `answered` (attempt id → its result) laid over them.
 */
export async function replanHistories(tx: Tx | Db, orders: WorkOrder[], now: Date, answered?: Map<string, AttemptResult>): Promise<Map<string, Histories>> {
  const out = new Map<string, Histories>();
  if (orders.length === 0) return out;
  const since = now.getTime() - CARD_WINDOW_MS;
  // The windows count the credential each order is charged under now; its own attempts on the
  // cards it had before are read too (attemptsOfCards reads an order's recent attempts by card).
  const charged = orders.map((o) => ({ merchantId: o.merchantId, cardToken: chargeKey(o) }));
  const earlier = orders.flatMap((o) => (o.credential ? [o.cardToken, ...cardUpdatesOf(o.cardUpdates).map((u) => u.credential)].filter(Boolean).map((cardToken) => ({ merchantId: o.merchantId, cardToken })) : []));
  const [read, cardOrders] = await Promise.all([
    attemptsOfCards(tx, [...charged, ...earlier], new Date(since), orders.map((o) => o.id)),
    ordersOfCards(tx, charged, new Date(since), orders.map((o) => o.id)),
  ]);
  const rows = answered ? read.map((a) => (answered.has(a.id) ? { ...a, ...answered.get(a.id)! } : a)) : read;
  const declines = declinesByCard(cardOrders);
  for (const o of orders) {
    out.set(o.id, {
      attempts: rows.filter((a) => a.orderSessionKey === o.id).sort((a, b) => a.attemptNo - b.attemptNo).map(toRecord),
      cardAttempts: [
        ...rows.filter((a) => a.merchantId === o.merchantId && a.cardToken === chargeKey(o) && a.startedAt.getTime() >= since).map(toRecord),
        ...cardDeclines(declines, { merchantId: o.merchantId, cardToken: chargeKey(o) }, since),
      ],
    });
  }
  return out;
}
