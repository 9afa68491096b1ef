// A claim of due orders with their attempt rows (one statement), then the card caps and the
// deadline checked for the whole claim against one read of the cards' histories (one
// statement): two orders of one card may have planned the same free slot, and another
// order of the card may have used it since. An attempt the caps no longer allow is dropped
// (nothing was sent) and its order re-planned; that is rare, so it runs per order.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { orderAttempts, type AttemptRow } from '../db/queries/attempts.ts';
import { attemptsOfCards } from '../db/queries/card-histories.ts';
import { claimWithAttempts, dropUnsentAttempt, type Claimed } from '../db/queries/claim-attempts.ts';
import { lockOrder } from '../db/queries/claim-orders.ts';
import { CARD_WINDOW_MS, loadHistories, toRecord } from './history.ts';
import { applyPlan, originalDecline, planOrder, processorDecline, type LifecycleCtx } from './lifecycle.ts';
import { capsAllowAttempt } from './planner.ts';

export interface ClaimCtx extends LifecycleCtx {
  db: Db;
  clock: Clock;
  processorName: string;
  owner: string;
  leaseSeconds: number;
}

const cardOf = (x: { merchantId: string; cardToken: string }) => `${x.merchantId}\u0000${x.cardToken}`;

/** Claims up to `limit` due orders and returns those whose attempt may go to the processor now. */
export async function claimAttempts(ctx: ClaimCtx, limit: number): Promise<Claimed[]> {
  const now = ctx.clock.now();
  const claimed = await claimWithAttempts(ctx.db, ctx.owner, now, new Date(now.getTime() + ctx.leaseSeconds * 1000), limit);
  const fresh = claimed.filter((c) => c.fresh);
  if (fresh.length === 0) return claimed;
  const byCard = new Map<string, AttemptRow[]>();
  for (const a of await attemptsOfCards(ctx.db, fresh.map((c) => c.order), new Date(now.getTime() - CARD_WINDOW_MS))) {
    const key = cardOf(a);
    byCard.set(key, [...(byCard.get(key) ?? []), a]);
  }
  // In claim order, an attempt sees the card's attempts made before this claim and the ones
  // this claim keeps ahead of it, not its own nor those after it: of two orders of one card
  // competing for one slot, the first goes.
  const order = new Map(fresh.map((c, i) => [c.attempt.id, i]));
  const dropped = new Set<string>();
  const ready: Claimed[] = [];
  for (const c of claimed) {
    if (!c.fresh) {
      ready.push(c); // in flight before: the processor may have seen its key, so it is sent again as is
      continue;
    }
    const mine = order.get(c.attempt.id)!;
    const card = (byCard.get(cardOf(c.order)) ?? []).filter((a) => !dropped.has(a.id) && (order.get(a.id) ?? -1) < mine);
    if (allowed(ctx, c, card, now)) {
      ready.push(c);
      continue;
    }
    dropped.add(c.attempt.id);
    await replan(ctx, c, now);
  }
  return ready;
}

function allowed(ctx: ClaimCtx, c: Claimed, card: AttemptRow[], now: Date): boolean {
  const deadline = (c.order.expiresAt?.getTime() ?? 0) - ctx.rules.timing.expiryMarginMs;
  return now.getTime() < deadline && capsAllowAttempt({ cardBrand: c.order.cardBrand, cardAttempts: card.map(toRecord), rules: ctx.rules, now });
}

/** Drops the unsent attempt and plans the order again from its last decline. */
async function replan(ctx: ClaimCtx, c: Claimed, now: Date): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const cur = await lockOrder(tx, c.order.id);
    if (cur?.status !== 'PROCESSING' || cur.leaseOwner !== ctx.owner) return;
    await dropUnsentAttempt(tx, c.attempt.id);
    const last = (await orderAttempts(tx, cur.id)).at(-1);
    const decline = last?.responseCode
      ? processorDecline(cur, ctx.processorName, last.responseCode, last.adviceCode ?? undefined, ctx.rules, now)
      : originalDecline(cur, ctx.rules, cur.createdAt);
    const p = planOrder(cur, decline, await loadHistories(tx, cur, now), ctx.rules, now, await ctx.models(tx, cur.merchantId));
    await applyPlan(tx, ctx, cur, 'PROCESSING', p, now, cur.attemptCount);
  });
}
