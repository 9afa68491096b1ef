// The first look at SUBMITTED orders, a batch per transaction: lock the batch, read every
// order's histories in one statement, plan each (pure), move them all in one statement and
// write the outbox events of those that stop at once in one more. Planning writes no attempt,
// so one read serves two orders of the same card exactly as two reads did; per order this was
// four statements, which a 50,000-entry batch file paid in full.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { lockSubmittedOrders } from '../db/queries/claim-orders.ts';
import { moveOrders, type GuardedMove } from '../db/queries/record-attempts.ts';
import { enqueueOrderEvents, type OrderEventInput } from '../webhooks/outbox.ts';
import { awaitsFor, learnedFor, originalDecline, planMove, planOrder, type LifecycleCtx } from './lifecycle.ts';
import { FRESH_CARD, updatedSinceLastAttempt } from './card-update.ts';
import { replanHistories } from './recorder.ts';
import { cascade, optIns } from './cascade.ts';

export interface SubmittedCtx extends LifecycleCtx {
  db: Db;
  clock: Clock;
}

/** Up to `limit` due SUBMITTED orders planned → PENDING or EXPIRED; returns how many. */
export async function planSubmitted(ctx: SubmittedCtx, limit: number): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const orders = await lockSubmittedOrders(tx, now, limit);
    const histories = await replanHistories(tx, orders, now);
    const moves: GuardedMove[] = [];
    const events: OrderEventInput[] = [];
    const optedIn = optIns(tx);
    for (const o of orders) {
      const h = histories.get(o.id)!;
      // The original decline, at hand-over; a card the merchant sent since speaks for itself.
      const decline = updatedSinceLastAttempt(o, h.attempts.length) ? FRESH_CARD : originalDecline(o, ctx.rules, o.createdAt);
      const p = planOrder(o, decline, h, ctx.rules, now, await ctx.models(tx, o.merchantId), await learnedFor(ctx, tx, o));
      // A card that ends at once may hand the order to the payer's next card (cascade.ts).
      const m = (await cascade(tx, optedIn, o, 'SUBMITTED', p, decline, now, o.attemptCount)) ?? planMove(ctx, o, 'SUBMITTED', p, now, o.attemptCount, decline, await awaitsFor(ctx, tx, o));
      moves.push({ id: o.id, from: 'SUBMITTED', ...m.move });
      if (m.event) events.push(m.event);
    }
    const moved = await moveOrders(tx, moves, now);
    // The rows are locked by this transaction: every move applies, or none does.
    if (moved.size !== moves.length) throw new Error(`planning moved ${moved.size} of ${moves.length} orders`);
    await enqueueOrderEvents(tx, events);
    return orders.length;
  });
}
