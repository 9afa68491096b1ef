// Transmit records and the merchant model's counters, written together in one transaction:
// the rows as one json parameter (one statement whatever the batch), the counters as one
// upsert of the batch's sums.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchantModelStats, transmits } from '../schema.ts';

export interface TransmitRow {
  id: string;
  merchantId: string;
  orderId: string;
  approved: boolean;
  amount: number | null;
  currency: string | null;
  cardBin: string | null;
  cardBrand: string | null;
  cardType: string | null;
  localHour: number | null;
  localDayOfMonth: number | null;
  request: unknown;
  createdAt: Date;
  /** The card's vault token when the transmit named one. */
  cardToken: string | null;
  /** The keyed fingerprint of a full number sent; resolved to the vault's token when it holds the card. */
  cardFingerprint: string | null;
  authorizedAt: Date | null;
  initiator: 'CIT' | 'MIT';
  declineSource: string | null;
  priorAttempts: unknown;
}

export interface StatIncrement {
  merchantId: string;
  dimension: string;
  bucket: string;
  approvals: number;
  total: number;
}

export async function insertTransmits(db: Db, rows: readonly TransmitRow[], stats: readonly StatIncrement[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map((r) => ({
    id: r.id, merchant_id: r.merchantId, order_id: r.orderId, approved: r.approved, amount: r.amount, currency: r.currency, card_bin: r.cardBin,
    card_brand: r.cardBrand, card_type: r.cardType, local_hour: r.localHour, local_day_of_month: r.localDayOfMonth, request: r.request,
    created_at: r.createdAt.toISOString(), card_token: r.cardToken, card_fingerprint: r.cardFingerprint,
    authorized_at: r.authorizedAt?.toISOString() ?? null, initiator: r.initiator, decline_source: r.declineSource, prior_attempts: r.priorAttempts,
  }));
  const counters = stats.map((s) => ({ merchant_id: s.merchantId, dimension: s.dimension, bucket: s.bucket, approvals: s.approvals, total: s.total, updated_at: now.toISOString() }));
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into ${transmits} (id, merchant_id, order_id, approved, amount, currency, card_bin, card_brand, card_type, local_hour, local_day_of_month, request, created_at,
        card_token, card_fingerprint, authorized_at, initiator, decline_source, prior_attempts)
      select x.id, x.merchant_id, x.order_id, x.approved, x.amount, x.currency, x.card_bin, x.card_brand, x.card_type, x.local_hour, x.local_day_of_month, x.request, x.created_at,
        coalesce(x.card_token, (select c.token from cards c where c.merchant_id = x.merchant_id and c.fingerprint = x.card_fingerprint)),
        x.card_fingerprint, x.authorized_at, x.initiator, x.decline_source, x.prior_attempts
      from json_populate_recordset(null::transmits, ${JSON.stringify(records)}::json) x`);
    if (counters.length === 0) return;
    // Sorted keys: two instances flushing at once lock the counters in the same order.
    await tx.execute(sql`
      insert into ${merchantModelStats} (merchant_id, dimension, bucket, approvals, total, updated_at)
      select merchant_id, dimension, bucket, approvals, total, updated_at
      from json_populate_recordset(null::merchant_model_stats, ${JSON.stringify(counters)}::json)
      order by merchant_id, dimension, bucket
      on conflict (merchant_id, dimension, bucket) do update set approvals = ${merchantModelStats}.approvals + excluded.approvals,
        total = ${merchantModelStats}.total + excluded.total, updated_at = excluded.updated_at`);
  });
}
