// The payer's cards in the vault (cards.payer_id, cards.payer_linked_at): linking a card to the
// payer it was tokenized for, and listing the cards an order may continue on (the cascade,
// src/vault/payer-cards.ts). One statement each.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards } from '../schema.ts';

export interface PayerCardRow {
  token: string;
  bin: string;
  last4: string;
  expMonth: number;
  expYear: number;
  brand: string | null;
  test: boolean;
  /** When the card was last tokenized for the payer; null for a card only the order lists. */
  linkedAt: Date | null;
}

type Raw = Record<string, unknown>;
const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Raw[];
const texts = (values: readonly string[]) => sql`${sql.param([...values])}::text[]`;
const date = (v: unknown): Date => cards.createdAt.mapFromDriverValue(v as string) as Date;

/** Names the payer on the merchant's card; false when the merchant has no card with this token. */
export async function linkCardToPayer(db: Db, merchantId: string, token: string, payerId: string): Promise<boolean> {
  const result = await db.execute(sql`
    update ${cards} set payer_id = ${payerId}, payer_linked_at = now()
    where merchant_id = ${merchantId}::uuid and token = ${token}
    returning id`);
  return rowsOf(result).length > 0;
}

export interface PayerCardQuery {
  merchantId: string;
  /** The merchant's id of the payer; absent: only `listed` is read. */
  payerId?: string | undefined;
  /** Tokens the order itself names (payer.otherCardTokens), first, in this order. */
  listed?: readonly string[];
  /** Tokens never returned (the order's cards so far). */
  exclude?: readonly string[];
  /** Cards that expired before this month (year, month 1–12) are not eligible. */
  notExpiredBefore: { year: number; month: number };
  limit?: number;
}

/**
 * The merchant's cards for the payer: those the order lists (in their order), then those
 * tokenized for the payer, most recently first; never an excluded or expired one. Another
 * merchant's token is never returned, whatever the order lists.
 */
export async function listPayerCards(db: Db, q: PayerCardQuery): Promise<PayerCardRow[]> {
  const listed = q.listed ?? [];
  const { year, month } = q.notExpiredBefore;
  const result = await db.execute(sql`
    select token, bin, last4, exp_month as "expMonth", exp_year as "expYear", brand, test, payer_linked_at as "linkedAt"
    from ${cards}
    where merchant_id = ${q.merchantId}::uuid
      and (token = any(${texts(listed)}) or (${q.payerId ?? null}::text is not null and payer_id = ${q.payerId ?? null}::text))
      and token <> all(${texts(q.exclude ?? [])})
      and (exp_year > ${year} or (exp_year = ${year} and exp_month >= ${month}))
    order by array_position(${texts(listed)}, token) nulls last, payer_linked_at desc nulls last, created_at desc, token
    limit ${q.limit ?? 20}`);
  return rowsOf(result).map((r) => ({
    token: String(r.token), bin: String(r.bin), last4: String(r.last4), expMonth: Number(r.expMonth), expYear: Number(r.expYear),
    brand: r.brand === null ? null : String(r.brand), test: r.test === true, linkedAt: r.linkedAt === null || r.linkedAt === undefined ? null : date(r.linkedAt),
  }));
}
