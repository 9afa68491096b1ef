// A claim of due orders with their attempt rows, then the card caps, the card-level stops and
// the deadline checked for the whole claim against one read of the cards' histories (their
// attempts and their orders' declines), all in one transaction holding each card's lock: two
// orders of one card may have planned the same free slot, and another order of the card, in
// this claim or another instance's, may have used it since. An attempt the caps no longer
// allow is dropped (nothing was sent) and its order re-planned, the claim's dropped orders
// together in one transaction: rare with distinct cards, but a file of many orders on a few
// cards drops most of each claim (one transaction per order settled about 250 orders/s).
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { AttemptRow } from '../db/queries/attempts.ts';
import { attemptsOfCards, lockCards, ordersOfCards } from '../db/queries/card-histories.ts';
import { claimWithAttempts, dropUnsentAttempts, type Claimed } from '../db/queries/claim-attempts.ts';
import { lockOrders, moveOrders, type GuardedMove } from '../db/queries/record-attempts.ts';
import { enqueueOrderEvents, type OrderEventInput } from '../webhooks/outbox.ts';
import { CARD_WINDOW_MS, cardDeclines, declinesByCard, toRecord } from './history.ts';
import type { AttemptRecord } from './plan-types.ts';
import { awaitsFor, learnedFor, originalDecline, planMove, planOrder, processorDecline, type LifecycleCtx } from './lifecycle.ts';
import { FRESH_CARD, updatedSinceLastAttempt } from './card-update.ts';
import { chargeBrand, chargeKey } from '../domain/card-updates.ts';
import { cascade, optIns } from './cascade.ts';
import { capsAllowAttempt } from './planner.ts';
import { cardLevelStop } from './caps.ts';
import { normaliseBrand } from '../declines/brands.ts';
import { replanHistories } from './recorder.ts';
import { CARD_BUSY_MS, wakeIfIdle } from './card-busy.ts';

export { CARD_BUSY_MS };

export interface ClaimCtx extends LifecycleCtx {
  db: Db;
  clock: Clock;
  processorName: string;
  owner: string;
  leaseSeconds: number;
}

const cardOf = (x: { merchantId: string; cardToken: string }) => `${x.merchantId}\u0000${x.cardToken}`;
/** An order's card as its windows count it: the credential it is charged under now. */
const chargedCard = (o: Claimed['order']) => ({ merchantId: o.merchantId, cardToken: chargeKey(o) });

/** Claims up to `limit` due orders and returns those whose attempt may go to the processor now. */
export async function claimAttempts(ctx: ClaimCtx, limit: number): Promise<Claimed[]> {
  const now = ctx.clock.now();
  const { claimed, dropped, busy } = await ctx.db.transaction(async (tx) => {
    const claimed = await claimWithAttempts(tx, ctx.owner, now, new Date(now.getTime() + ctx.leaseSeconds * 1000), limit);
    const fresh = claimed.filter((c) => c.fresh);
    if (fresh.length === 0) return { claimed, dropped: new Set<string>(), busy: new Set<string>() };
    // The cards' locks, held to the commit: another instance's claim on one of these cards
    // waits here, then reads this claim's attempts as sent (or gone), never half-decided; so
    // one of two racing claims always goes, and never both.
    const cards = fresh.map((c) => chargedCard(c.order));
    await lockCards(tx, cards);
    const since = new Date(now.getTime() - CARD_WINDOW_MS);
    const cardAttempts = await attemptsOfCards(tx, cards, since);
    const cardOrders = await ordersOfCards(tx, cards, since, fresh.map((c) => c.order.id));
    const decided = decide(ctx, claimed, cardAttempts, declinesByCard(cardOrders), since, now);
    // Unsent attempts go with the decision, so no other claim ever counts them.
    await dropUnsentAttempts(tx, [...decided.dropped]);
    return { claimed, ...decided };
  });
  await replan(ctx, claimed.filter((c) => dropped.has(c.attempt.id)), now, busy);
  return claimed.filter((c) => !dropped.has(c.attempt.id));
}

/** Which of the claim's fresh attempts may not go: over a cap or a stop (`dropped`), or the card busy (also in `busy`). */
function decide(ctx: ClaimCtx, claimed: Claimed[], cardAttempts: AttemptRow[], declines: ReturnType<typeof declinesByCard>, since: Date, now: Date) {
  const byCard = new Map<string, AttemptRow[]>();
  for (const a of cardAttempts) {
    const key = cardOf(a);
    byCard.set(key, [...(byCard.get(key) ?? []), a]);
  }
  // In claim order, an attempt sees the card's attempts made before this claim and the ones
  // this claim keeps ahead of it, not its own nor those after it: of two orders of one card
  // competing for one slot, the first goes.
  const order = new Map(claimed.filter((c) => c.fresh).map((c, i) => [c.attempt.id, i]));
  const dropped = new Set<string>();
  const busy = new Set<string>();
  const leaseStart = now.getTime() - ctx.leaseSeconds * 1000;
  for (const c of claimed) {
    if (!c.fresh) continue; // in flight before: the processor may have seen its key, so it is sent again as is
    const mine = order.get(c.attempt.id)!;
    const card = (byCard.get(cardOf(chargedCard(c.order))) ?? []).filter((a) => !dropped.has(a.id) && (order.get(a.id) ?? -1) < mine);
    if (!allowed(ctx, c, [...card.map(toRecord), ...cardDeclines(declines, chargedCard(c.order), since.getTime())], now)) {
      dropped.add(c.attempt.id);
    } else if (card.some((a) => a.status === 'in_flight' && a.startedAt.getTime() > leaseStart)) {
      // In flight within a lease: this claim's own, or another instance's still being answered.
      dropped.add(c.attempt.id);
      busy.add(c.attempt.id);
    }
  }
  return { dropped, busy };
}

function allowed(ctx: ClaimCtx, c: Claimed, card: AttemptRecord[], now: Date): boolean {
  const deadline = (c.order.expiresAt?.getTime() ?? 0) - ctx.rules.timing.expiryMarginMs;
  if (now.getTime() >= deadline) return false;
  // A stop another order of the card earned since this one was planned (its re-plan says why).
  const brand = chargeBrand(c.order);
  if (cardLevelStop(normaliseBrand(brand), card, ctx.rules, now.getTime())) return false;
  return capsAllowAttempt({ cardBrand: brand, cardAttempts: card, rules: ctx.rules, now });
}

/**
 * Drops the unsent attempts, in one transaction: an order whose card was busy (`busy`, by
 * attempt id) keeps its plan and is due again CARD_BUSY_MS later (the claim then checks it
 * against the card's answer); every other order is planned again from its last decline.
 */
async function replan(ctx: ClaimCtx, dropped: Claimed[], now: Date, busy: ReadonlySet<string>): Promise<void> {
  if (dropped.length === 0) return;
  const later = new Date(now.getTime() + CARD_BUSY_MS);
  const waits = (c: Claimed) => busy.has(c.attempt.id) && later.getTime() < (c.order.expiresAt?.getTime() ?? 0) - ctx.rules.timing.expiryMarginMs;
  let waiting: Claimed[] = [];
  await ctx.db.transaction(async (tx) => {
    const current = await lockOrders(tx, dropped.map((c) => c.order.id));
    // Still this claim's: not cancelled, nor taken by another instance after a lost lease.
    const mine = dropped.filter((c) => current.get(c.order.id)?.status === 'PROCESSING' && current.get(c.order.id)?.leaseOwner === ctx.owner);
    await dropUnsentAttempts(tx, mine.map((c) => c.attempt.id));
    waiting = mine.filter(waits);
    const moves: GuardedMove[] = waiting.map((c) => ({ id: c.order.id, from: 'PROCESSING', owner: ctx.owner, status: 'PENDING', nextAttemptAt: later }));
    const orders = mine.filter((c) => !waits(c)).map((c) => current.get(c.order.id)!);
    const histories = await replanHistories(tx, orders, now);
    const events: OrderEventInput[] = [];
    const optedIn = optIns(tx);
    for (const cur of orders) {
      const h = histories.get(cur.id)!;
      const last = h.attempts.at(-1);
      const decline = updatedSinceLastAttempt(cur, h.attempts.length)
        ? FRESH_CARD
        : last?.responseCode
          ? processorDecline(cur, ctx.processorName, last.responseCode, last.adviceCode ?? undefined, ctx.rules, now)
          : originalDecline(cur, ctx.rules, cur.createdAt);
      const p = planOrder(cur, decline, h, ctx.rules, now, await ctx.models(tx, cur.merchantId), await learnedFor(ctx, tx, cur));
      // A card that may no longer be charged may hand the order to the payer's next card (cascade.ts).
      const m = (await cascade(tx, optedIn, cur, 'PROCESSING', p, decline, now, cur.attemptCount)) ?? planMove(ctx, cur, 'PROCESSING', p, now, cur.attemptCount, decline, await awaitsFor(ctx, tx, cur));
      moves.push({ id: cur.id, from: 'PROCESSING', owner: ctx.owner, ...m.move });
      if (m.event) events.push(m.event);
    }
    const moved = await moveOrders(tx, moves, now);
    // The rows are locked by this transaction: every move applies, or none does.
    if (moved.size !== moves.length) throw new Error(`re-planning moved ${moved.size} of ${moves.length} orders`);
    await enqueueOrderEvents(tx, events);
  });
  // The busy card's answer may have come while these orders were still PROCESSING here.
  if (waiting.length) await wakeIfIdle(ctx.db, waiting.map((c) => chargedCard(c.order)), now, new Date(now.getTime() - ctx.leaseSeconds * 1000));
}
