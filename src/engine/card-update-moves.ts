// The recorder's moves for updated cards (docs/engine.md "Card updates"): the gateway's
// account updater's news recorded on the order, and the first attempt on a new credential
// made at once. Apart from recorder.ts so it stays one job: recording a group of answers.
import type { WorkOrder } from '../db/queries/claim-orders.ts';
import type { OrderMove } from '../db/queries/move-order.ts';
import { assertTransition } from '../domain/states.ts';
import type { GatewayCardUpdate } from '../processors/types.ts';
import { CARD_UPDATED } from '../domain/card-updates.ts';
import type { OrderEventInput } from '../webhooks/outbox.ts';
import { event, type LifecycleCtx, type Move } from './lifecycle.ts';
import { updaterEntry, withUpdate } from './card-update.ts';

export interface UpdaterNews {
  /** The order's columns after the update (credential, card_updates). */
  fields: Pick<WorkOrder, 'credential' | 'cardUpdates'>;
  /** False for a `closed` card: recorded, nothing to charge instead. */
  switched: boolean;
  event: OrderEventInput;
}

/** What the account updater said, as the order's new columns and its order.card_updated event. */
export function updaterNews(ctx: Pick<LifecycleCtx, 'testMode'>, order: WorkOrder, cu: GatewayCardUpdate, now: Date, attempts: number): UpdaterNews {
  const entry = updaterEntry(order, cu, now, attempts);
  const fields = withUpdate(order, entry);
  const card = { source: entry.source, kind: entry.kind, last4: entry.last4 ?? null, brand: entry.brand ?? null, expMonth: entry.expMonth ?? null, expYear: entry.expYear ?? null };
  return { fields, switched: cu.kind !== 'closed', event: event(order, ctx, 'order.card_updated', order.status as 'PROCESSING', now, { reason: `account_updater: ${cu.kind}`, attempts, card }) };
}

/** A move with the updater's news laid over it: the new columns, and its event first. */
export function withNews(m: Move, news: UpdaterNews | undefined): Move {
  if (!news) return m;
  const move: OrderMove = { ...m.move, credential: news.fields.credential, cardUpdates: news.fields.cardUpdates };
  return { ...m, move, also: { ...news.event, status: move.status } };
}

/** PENDING, due now: the first attempt on the order's new credential (the claim checks the networks' rules for it). */
export function tryNewCard(now: Date, attemptCount: number): Move {
  assertTransition('PROCESSING', 'PENDING');
  return { move: { status: 'PENDING', statusReason: null, planReason: CARD_UPDATED, nextAttemptAt: now, attemptCount } };
}
