// The webhooks sent for one order: its outbox events with each delivery's state. Events are
// found through webhook_events_merchant_idx (merchant_id, created_at) from the order's
// creation on — there is no index on order_session_key, and an order's events are never older
// than the order — and deliveries through webhook_deliveries_event_idx.
import { and, asc, eq, gte, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { webhookDeliveries, webhookEvents } from '../../db/schema.ts';

export interface OrderWebhook {
  webhookId: string;
  type: string;
  createdAt: Date;
  deliveries: { status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; isResent: boolean; nextAttemptAt: Date | null; finishedAt: Date | null }[];
}

export async function orderWebhooks(db: Db, order: { id: string; merchantId: string; createdAt: Date }): Promise<OrderWebhook[]> {
  const events = await db
    .select({ id: webhookEvents.id, type: webhookEvents.type, createdAt: webhookEvents.createdAt })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.merchantId, order.merchantId), gte(webhookEvents.createdAt, order.createdAt), eq(webhookEvents.orderSessionKey, order.id)))
    .orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.id))
    .limit(100);
  if (!events.length) return [];
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.eventId, events.map((e) => e.id)))
    .orderBy(asc(webhookDeliveries.createdAt));
  return events.map((e) => ({
    webhookId: e.id,
    type: e.type,
    createdAt: e.createdAt,
    deliveries: deliveries
      .filter((d) => d.eventId === e.id)
      .map((d) => ({ status: d.status, attempts: d.attemptCount, lastStatusCode: d.lastStatusCode, lastError: d.lastError, isResent: d.isResent, nextAttemptAt: d.nextAttemptAt, finishedAt: d.finishedAt })),
  }));
}
