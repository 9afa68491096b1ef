// Card updates in the engine (docs/engine.md "Card updates"): a decline that means the card
// must change makes the order wait for an updated card until its deadline instead of ending at
// once (when the merchant's setting says so), and an updated card, from the merchant or from
// the gateway's account updater, moves the order onto its own credential and is tried at once.
import type { DbOrTx as Tx } from '../db/client.ts';
import { awaitUpdatedCardOf } from '../db/queries/card-update-setting.ts';
import type { WorkOrder } from '../db/queries/claim-orders.ts';
import type { OrderMove } from '../db/queries/move-order.ts';
import type { Clock } from '../clock.ts';
import type { Classification } from '../declines/classify.ts';
import { needsNewCard } from '../declines/card-change.ts';
import { AWAITING_UPDATED_CARD, cardUpdatesOf, chargeKey, chargeToken, currentUpdate, updaterCredential, type AwaitingCard, type CardUpdate } from '../domain/card-updates.ts';
import type { GatewayCardUpdate } from '../processors/types.ts';
import type { Plan, StopReason } from './plan-types.ts';

/** Whether a merchant's orders wait for an updated card: its own setting, else the configured default. */
export type AwaitSource = (db: Tx, merchantId: string) => Promise<boolean>;

export function cachedAwaitSetting(clock: Clock, fallback: boolean, ttlMs = 60_000): AwaitSource {
  const cache = new Map<string, { v: boolean; at: number }>();
  return async (db, merchantId) => {
    const now = clock.now().getTime();
    const hit = cache.get(merchantId);
    if (hit && now - hit.at < ttlMs && now >= hit.at) return hit.v;
    const v = (await awaitUpdatedCardOf(db, merchantId)) ?? fallback;
    cache.set(merchantId, { v, at: now });
    return v;
  };
}

/**
 * The stops an updated card can lift: those the decline itself earned. A card-level stop
 * (another order's MAC 03, the card's caps), the order's own attempt cap and the deadline are
 * not about the card being the wrong one, and end the order as before.
 */
const LIFTABLE: ReadonlySet<StopReason> = new Set<StopReason>(['visa_category_1', 'mastercard_advice_do_not_retry', 'hard_decline', 'card_data_required_mit']);

/** True when the plan's stop should become a wait for an updated card. */
export function awaitsCard(p: Plan, decline: Classification, enabled: boolean): boolean {
  return enabled && p.action === 'stop' && LIFTABLE.has(p.reason) && needsNewCard(decline);
}

/** What the order keeps of the decline that made it wait. */
export function awaitingRecord(decline: Classification, stopText: string, now: Date): AwaitingCard {
  return {
    since: now.toISOString(), reason: stopText,
    decline: { reason: decline.reason, class: decline.class, code: decline.networkCode ?? decline.code ?? null, source: decline.source, adviceCode: decline.advice?.code ?? null },
  };
}

/** PENDING with no planned attempt until a card comes; the expiry sweep ends it with `stopText` at the deadline. */
export function awaitingMove(waiting: AwaitingCard, attemptCount: number): OrderMove {
  return { status: 'PENDING', statusReason: null, planReason: AWAITING_UPDATED_CARD, nextAttemptAt: null, attemptCount, awaitingCard: waiting };
}

/**
 * A decline that the planner cannot read for the order's current credential: the order's card
 * was updated after its last attempt, so that attempt's decline (or the original one) speaks
 * of another card. The new card is read as a cautious generic soft decline (DESIGN.md §3).
 */
export const FRESH_CARD: Classification = { reason: 'unknown', class: 'soft', softKind: 'generic', source: 'default' };

export function updatedSinceLastAttempt(order: Pick<WorkOrder, 'credential' | 'cardUpdates'>, attempts: number): boolean {
  const u = order.credential ? currentUpdate(order.cardUpdates) : undefined;
  return u !== undefined && u.afterAttempts >= attempts;
}

/** The account updater's news as a card update of `order`; null for a `closed` card (nothing to charge). */
export function updaterEntry(order: WorkOrder, cu: GatewayCardUpdate, now: Date, attempts: number): CardUpdate {
  const base: CardUpdate = {
    at: now.toISOString(), source: 'account_updater', kind: cu.kind, credential: '', vaultToken: chargeToken(order), afterAttempts: attempts,
    last4: cu.last4 ?? null, expMonth: cu.expMonth ?? null, expYear: cu.expYear ?? null, gatewayReference: cu.gatewayReference ?? null,
    brand: currentUpdate(order.cardUpdates)?.brand ?? order.cardBrand,
  };
  if (cu.kind === 'closed') return base;
  const credential = updaterCredential(chargeKey(order), { kind: cu.kind, ...(cu.gatewayReference ? { gatewayReference: cu.gatewayReference } : {}), ...(cu.last4 ? { last4: cu.last4 } : {}), ...(cu.expMonth ? { expMonth: cu.expMonth } : {}), ...(cu.expYear ? { expYear: cu.expYear } : {}) });
  return { ...base, credential };
}

/** The order's updates with `entry` appended, and the credential it moves to (unchanged for `closed`). */
export function withUpdate(order: Pick<WorkOrder, 'cardUpdates' | 'credential'>, entry: CardUpdate): { cardUpdates: CardUpdate[]; credential: string | null } {
  return { cardUpdates: [...cardUpdatesOf(order.cardUpdates), entry], credential: entry.kind === 'closed' ? order.credential : entry.credential };
}
