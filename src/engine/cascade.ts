// The payer's other cards (docs/engine.md, "The payer's other cards"). When an order's card
// ends — the planner stops on something about the card itself (lost or stolen, closed,
// expired, invalid, Visa category 1, the card's network caps) — and the merchant opted in
// (`rescued merchant set <mid> --cascade-other-cards on`), the order continues on the payer's
// next eligible card instead of ending: the cards the order lists (payer.otherCardTokens), then
// the cards tokenized for its payer.id, most recent first (src/vault/payer-cards.ts).
//  - One attempt budget per order: attempt_count keeps counting across cards, so the order's
//    cap (engine.maxAttemptsPerOrder) and its deadline hold for all of them together.
//  - Each card under its own network counters: the new card becomes the order's credential
//    (an `other_card` entry in orders.card_updates, src/domain/card-updates.ts), the key its
//    attempts are made and counted under; the order's own card_token, and with it the original
//    decline's place in that card's windows, stays; the claim checks the new card's caps before
//    its first attempt (claim.ts). An approval on it is attributed `other_card`.
//  - A card the order ended on is never tried again: it is kept in orders.ended_cards, and
//    every card the order was attempted on is excluded too.
//  - Never after a decline that speaks for the payer rather than the card (suspected fraud, a
//    stop-payment or revocation, Mastercard's "do not try again", authentication the customer
//    must give), nor after the deadline or the order's own attempt cap.
// The order moves to PENDING with its first attempt on the new card due at once (the claim's
// caps check may still hold it), planReason `other_card`.
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import type { WorkOrder } from '../db/queries/claim-orders.ts';
import { selectRows } from '../db/queries/claim-orders.ts';
import { merchantSettings } from '../db/queries/merchant-settings.ts';
import { assertTransition, type Status } from '../domain/states.ts';
import type { Classification } from '../declines/classify.ts';
import { eligiblePayerCards, type PayerCard } from '../vault/payer-cards.ts';
import { cardUpdatesOf, chargeToken, currentUpdate, type CardUpdate } from '../domain/card-updates.ts';
import type { Move } from './lifecycle.ts';
import type { Plan, StopReason } from './plan-types.ts';

/** The planReason of the first attempt on the payer's next card (and the recovery's attribution). */
export const OTHER_CARD = 'other_card';

// Stops that are about the card: another card may succeed.
const CARD_STOPS: ReadonlySet<StopReason> = new Set([
  'hard_decline', 'visa_category_1', 'card_data_required_mit',
  'visa_reattempt_cap', 'mastercard_attempt_cap', 'mastercard_decline_cap_24h', 'brand_attempt_cap',
]);
// Declines that speak for the payer or the merchant, not the card: no other card is charged.
const NEVER: ReadonlySet<string> = new Set(['suspected_fraud', 'security_violation', 'stop_payment', 'do_not_retry', 'cancelled', 'authentication_required', 'duplicate', 'merchant_side']);

/** A card the order ended on (orders.ended_cards). */
export interface EndedCard {
  token: string;
  last4: string;
  /** The planner's stop and the decline's canonical reason. */
  reason: string;
  at: string;
}

const endedOf = (v: unknown): EndedCard[] => (Array.isArray(v) ? v.filter((e): e is EndedCard => typeof (e as EndedCard)?.token === 'string') : []);

/** Whether a stop may move the order to another card, before any database read. */
export function mayCascade(plan: Plan, decline: Classification): boolean {
  // Mastercard's "do not try again" (MAC 03, 21) stops as mastercard_advice_do_not_retry: not a card stop.
  return plan.action === 'stop' && CARD_STOPS.has(plan.reason) && !NEVER.has(decline.reason);
}

/** The merchant's opt-in, read once per merchant per call. */
export function optIns(db: DbOrTx): (merchantId: string) => Promise<boolean> {
  const seen = new Map<string, Promise<boolean>>();
  return (merchantId) => {
    let p = seen.get(merchantId);
    if (!p) seen.set(merchantId, (p = merchantSettings(db, merchantId).then((s) => s?.cascadeOtherCards === true)));
    return p;
  };
}

interface PayerView {
  payer?: { id?: string | null; otherCardTokens?: string[] | null };
}

interface OrderCards {
  ended: EndedCard[];
  /** Every card the order was attempted on. */
  tried: string[];
  last4: string;
}

/** What the order row says about its cards (one statement, only for an order that stops). */
async function orderCards(db: DbOrTx, orderId: string): Promise<OrderCards> {
  const [row] = await selectRows(
    db,
    sql`select o.ended_cards, o.card_last4, array(select distinct a.card_token from attempts a where a.order_session_key = o.id) as tried
      from orders o where o.id = ${orderId}::uuid`,
  );
  return { ended: endedOf(row?.ended_cards), tried: (row?.tried as string[] | null) ?? [], last4: (row?.card_last4 as string | null) ?? '????' };
}

/** The payer's next eligible card for the order (or undefined), with what the order row says. */
export async function nextCard(db: DbOrTx, order: WorkOrder, now: Date): Promise<{ card: PayerCard | undefined; mine: OrderCards }> {
  const payer = (order.request as PayerView | null)?.payer ?? {};
  const mine = await orderCards(db, order.id);
  const updated = cardUpdatesOf(order.cardUpdates).map((u) => u.vaultToken);
  const exclude = [order.cardToken, chargeToken(order), ...updated, ...mine.ended.map((e) => e.token), ...mine.tried];
  const [card] = await eligiblePayerCards(db, { merchantId: order.merchantId, payerId: payer.id ?? undefined, listed: payer.otherCardTokens ?? [], exclude, now, limit: 1 });
  return { card, mine };
}

/**
 * The order moved to the payer's next card, due at once, when the stop allows it, the merchant
 * opted in, the deadline is ahead and an eligible card exists; otherwise undefined (the stop
 * stands). The move carries the card switch, so whoever applies moves applies it in the same
 * statement (record-attempts.ts moveOrders / finishAndMove).
 */
export async function cascade(db: DbOrTx, optedIn: (merchantId: string) => Promise<boolean>, order: WorkOrder, from: Status, plan: Plan, decline: Classification, now: Date, attemptCount: number): Promise<Move | undefined> {
  if (!mayCascade(plan, decline) || (order.expiresAt && order.expiresAt.getTime() <= now.getTime())) return undefined;
  if (!(await optedIn(order.merchantId))) return undefined;
  const { card, mine } = await nextCard(db, order, now);
  if (!card) return undefined;
  assertTransition(from, 'PENDING');
  const stop = plan.action === 'stop' ? plan.reason : 'stop';
  const ended: EndedCard = { token: chargeToken(order), last4: currentUpdate(order.cardUpdates)?.last4 ?? mine.last4, reason: `${stop}: ${decline.reason}`, at: now.toISOString() };
  const entry: CardUpdate = {
    at: now.toISOString(), source: 'other_card', kind: 'card', credential: card.token, vaultToken: card.token, afterAttempts: attemptCount,
    bin: card.bin, last4: card.last4, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear,
  };
  return {
    move: {
      status: 'PENDING',
      planReason: `${OTHER_CARD}: ${decline.reason} on the card ending ${ended.last4} (${stop}); next: ${card.brand ?? 'card'} ending ${card.last4}`,
      nextAttemptAt: now,
      attemptCount,
      credential: card.token,
      cardUpdates: [...cardUpdatesOf(order.cardUpdates), entry],
      endedCards: [...mine.ended, ended],
    },
  };
}
