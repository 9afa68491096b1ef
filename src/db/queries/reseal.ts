// The reads and writes of `vault rotate`: pages of sealed values in id order (keyset
// pagination, so a row that cannot be re-encrypted is passed over, not read again forever)
// and one transaction per page of re-encrypted values. Each update names the value it
// replaces, so a row changed meanwhile (a card tokenized again) is left as it now is.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards, webhookEndpoints } from '../schema.ts';

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

export interface SealedCardRef {
  id: string;
  merchantId: string;
  token: string;
  sealed: string;
}

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

/**
 * The distinct key ids of the cards, by walking the (key_id, id) index from one key to the
 * next (a loose index scan): a few index probes per key, however many cards there are.
 */
export async function cardKeyIds(db: Db): Promise<string[]> {
  const result = await db.execute(sql`
    with recursive k(key_id) as (
      (select key_id from ${cards} order by key_id limit 1)
      union all
      select (select c.key_id from ${cards} c where c.key_id > k.key_id order by c.key_id limit 1) from k where k.key_id is not null
    )
    select key_id from k where key_id is not null`);
  return rowsOf(result).map((r) => String(r.key_id));
}

/** Cards sealed under `keyId`, after `afterId`, in id order (the (key_id, id) index). */
export async function cardsUnderKey(db: Db, keyId: string, afterId: string | undefined, limit: number): Promise<SealedCardRef[]> {
  return db
    .select({ id: cards.id, merchantId: cards.merchantId, token: cards.token, sealed: cards.sealed })
    .from(cards)
    .where(and(eq(cards.keyId, keyId), gt(cards.id, afterId ?? FIRST_UUID)))
    .orderBy(asc(cards.keyId), asc(cards.id))
    .limit(limit);
}

export interface Resealed {
  id: string;
  oldSealed: string;
  sealed: string;
  keyId: string;
}

/** Returns how many rows were updated (a row changed since it was read is skipped). */
export async function resealCards(db: Db, rows: readonly Resealed[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction(async (tx) => {
    let n = 0;
    for (const r of rows) {
      const done = await tx.update(cards).set({ sealed: r.sealed, keyId: r.keyId }).where(and(eq(cards.id, r.id), eq(cards.sealed, r.oldSealed))).returning({ id: cards.id });
      n += done.length;
    }
    return n;
  });
}

export interface SealedWebhookSecrets {
  id: string;
  merchantId: string;
  secretSealed: string;
  previousSecretSealed: string | null;
}

/** Webhook endpoints after `afterId`, in id order (one per merchant; the key is checked by the caller). */
export async function webhookSecretsPage(db: Db, afterId: string | undefined, limit: number): Promise<SealedWebhookSecrets[]> {
  return db
    .select({ id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, secretSealed: webhookEndpoints.secretSealed, previousSecretSealed: webhookEndpoints.previousSecretSealed })
    .from(webhookEndpoints)
    .where(gt(webhookEndpoints.id, afterId ?? FIRST_UUID))
    .orderBy(asc(webhookEndpoints.id))
    .limit(limit);
}

export interface ResealedWebhook {
  row: SealedWebhookSecrets;
  secretSealed: string;
  previousSecretSealed: string | null;
}

export async function resealWebhookSecrets(db: Db, rows: readonly ResealedWebhook[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction(async (tx) => {
    let n = 0;
    for (const r of rows) {
      const done = await tx
        .update(webhookEndpoints)
        .set({ secretSealed: r.secretSealed, previousSecretSealed: r.previousSecretSealed })
        .where(and(eq(webhookEndpoints.id, r.row.id), eq(webhookEndpoints.secretSealed, r.row.secretSealed)))
        .returning({ id: webhookEndpoints.id });
      n += done.length;
    }
    return n;
  });
}
