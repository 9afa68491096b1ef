// `rescued webhooks list`: the latest deliveries, newest first; `failed` keeps those that are
// dead or whose last attempt failed (pending with attempts behind them).
import { and, desc, eq, gt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, webhookDeliveries, webhookEndpoints, webhookEvents } from '../schema.ts';

export interface ListDeliveriesOptions {
  failed: boolean;
  mid?: string | undefined;
  limit: number;
}

export async function listWebhookDeliveries(db: Db, o: ListDeliveriesOptions) {
  const where: SQL[] = [];
  if (o.failed) where.push(or(eq(webhookDeliveries.status, 'dead'), and(eq(webhookDeliveries.status, 'pending'), gt(webhookDeliveries.attemptCount, 0)))!);
  if (o.mid) where.push(eq(merchants.mid, o.mid));
  return db
    .select({
      deliveryId: webhookDeliveries.id,
      webhookId: webhookDeliveries.eventId,
      event: webhookEvents.type,
      mid: merchants.mid,
      endpointId: webhookEndpoints.id,
      url: webhookEndpoints.url,
      endpointEnabled: webhookEndpoints.enabled,
      status: webhookDeliveries.status,
      isResent: webhookDeliveries.isResent,
      attempts: webhookDeliveries.attemptCount,
      lastStatusCode: webhookDeliveries.lastStatusCode,
      lastError: webhookDeliveries.lastError,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      createdAt: webhookDeliveries.createdAt,
      finishedAt: webhookDeliveries.finishedAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(merchants, eq(merchants.id, webhookEndpoints.merchantId))
    .where(where.length ? and(...where) : sql`true`)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(o.limit);
}

export type DeliveryListing = Awaited<ReturnType<typeof listWebhookDeliveries>>[number];
