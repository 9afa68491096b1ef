// The transactional outbox (DESIGN.md §2 "Webhook delivery"): a state change and its event are
// written by the same transaction, so no change is committed without its event and no event
// exists without its change. The dispatcher delivers from these rows; nothing here talks HTTP.
import { randomUUID } from 'node:crypto';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../db/client.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../db/schema.ts';
import { maskIdentifier } from '../card-numbers.ts';
import { scrubText } from '../scrub.ts';

export const ORDER_EVENTS = {
  'order.completed': 'ORDER COMPLETE',
  'order.expired': 'ORDER EXPIRED',
  'order.cancelled': 'ORDER CANCELLED',
  'order.refunded': 'ORDER REFUNDED',
  // The order's card must change: it waits for an updated card until its deadline.
  'order.card_update_needed': 'ORDER CARD UPDATE NEEDED',
  // An updated card was attached (by the merchant, the gateway's account updater or the payer's other card).
  'order.card_updated': 'ORDER CARD UPDATED',
} as const;
export type OrderEventType = keyof typeof ORDER_EVENTS;

/** What the event says about the order: never a card number (at most BIN and last four). */
export interface OrderEventInput {
  type: OrderEventType;
  merchantId: string;
  orderSessionKey: string;
  /** The merchant's own orderId. */
  orderId: string;
  status: string;
  reason?: string | null;
  /** Minor units, with the currency. */
  amount: number;
  currency: string;
  attempts: number;
  confirmationId?: string | null;
  refundedAmount?: number;
  isTestMode: boolean;
  at: Date;
  /** order.card_update_needed: the decline that means the card must change, and until when an updated card is taken. */
  decline?: { reason: string; code: string | null; source: string | null; adviceCode: string | null };
  awaitingUntil?: Date | null;
  /** order.card_updated: where the card came from and what it is (never more than BIN and last four). */
  card?: { source: string; kind: string; bin?: string | null; last4?: string | null; brand?: string | null; expMonth?: number | null; expYear?: number | null };
  /** order.completed: what recovered the order (retry, merchant_update, account_updater, other_card). */
  recoveredBy?: string | null;
}

/**
 * The body merchants receive (DESIGN.md §2 "Webhooks"). Identifiers pass the one detector's
 * identifier rule and text its scrub, as in the results file (outbound/results.ts).
 */
export function eventPayload(e: OrderEventInput, isResent = false) {
  return {
    Event: ORDER_EVENTS[e.type],
    TimeStamp: e.at.toISOString(),
    EventData: {
      type: e.type,
      status: e.status,
      reason: e.reason ? scrubText(e.reason) : null,
      amount: e.amount / 100,
      currency: e.currency,
      attempts: e.attempts,
      ...(e.refundedAmount !== undefined ? { refundedAmount: e.refundedAmount / 100 } : {}),
      ...(e.recoveredBy ? { recoveredBy: e.recoveredBy } : {}),
      ...(e.decline ? { decline: e.decline, awaitingUntil: e.awaitingUntil?.toISOString() ?? null } : {}),
      ...(e.card ? { card: { ...e.card, bin: e.card.bin ? maskIdentifier(e.card.bin) : null } } : {}),
    },
    ExternalOrderId: maskIdentifier(e.orderId),
    OrderId: e.orderSessionKey,
    ConfirmationId: maskIdentifier(e.confirmationId ?? null),
    IsTestMode: e.isTestMode,
    IsResent: isResent,
  };
}

/** A webhook-id in the Standard Webhooks style: stable for the event, across every retry. */
export function newEventId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Records the event and, when the merchant has an endpoint with a URL, a delivery due now.
 * Call it inside the transaction that makes the state change. Returns the event id. An
 * endpoint disabled by a 410 still gets the delivery: it waits, with the others, until
 * `rescued webhooks enable`, so no event is lost while the receiver was gone.
 */
export async function enqueueOrderEvent(tx: Tx, e: OrderEventInput): Promise<string> {
  const id = newEventId();
  await tx.insert(webhookEvents).values({ id, merchantId: e.merchantId, orderSessionKey: e.orderSessionKey, type: e.type, payload: eventPayload(e), createdAt: e.at });
  const [endpoint] = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, e.merchantId), isNotNull(webhookEndpoints.url)));
  if (endpoint) await tx.insert(webhookDeliveries).values({ eventId: id, endpointId: endpoint.id, status: 'pending', nextAttemptAt: e.at });
  return id;
}

/**
 * enqueueOrderEvent for many events in one transaction, in ONE statement whatever their
 * number (the events, and a delivery for each merchant with an endpoint URL): the engine
 * records a group of attempts at once. Returns the event ids in order.
 */
export async function enqueueOrderEvents(tx: Tx, events: OrderEventInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({ id: newEventId(), merchantId: e.merchantId, orderSessionKey: e.orderSessionKey, type: e.type, payload: eventPayload(e), createdAt: e.at.toISOString() }));
  await tx.execute(sql`with ev as (
      insert into webhook_events (id, merchant_id, order_session_key, type, payload, created_at)
      select * from json_to_recordset(${JSON.stringify(rows)}::json)
        as r("id" text, "merchantId" uuid, "orderSessionKey" uuid, "type" text, "payload" json, "createdAt" timestamptz)
      returning id, merchant_id, created_at
    )
    insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
    select ev.id, ep.id, 'pending', ev.created_at from ev join webhook_endpoints ep on ep.merchant_id = ev.merchant_id and ep.url is not null`);
  return rows.map((r) => r.id);
}
