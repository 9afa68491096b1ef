// The vault's retention rule (src/vault/card-retention.ts) as statements: a stored card is
// needed while an order names it that is open or was created after the cut-off
// (orders_card_idx: a token used a moment ago may still sit in a process's edge cache, and
// the networks count each order's decline against the card), while an attempt on it is in
// flight or younger than the cut-off (attempts_card_idx: the network rules count a card's
// attempts by its token, so a card deleted and tokenized again would start a new count), or
// while it was presented (tokenized, or its number sent at evaluate or in a batch; recorded
// to the day) or its details updated after the cut-off: a merchant's stored token waiting
// for its order. A card none of these needs is deleted.
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows } from './claim-orders.ts';
import { uuidList } from './raw-rows.ts';

const unneeded = (c: SQL, cut: Date) => {
  const at = sql`${cut.toISOString()}::timestamptz`;
  return sql`${c}.last_tokenized_at < ${at} and ${c}.updated_at < ${at}
    and not exists (select 1 from orders o where o.merchant_id = ${c}.merchant_id and o.card_token = ${c}.token
      and (o.created_at >= ${at} or o.status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE')))
    and not exists (select 1 from attempts a where a.merchant_id = ${c}.merchant_id and a.card_token = ${c}.token
      and (a.started_at >= ${at} or a.status = 'in_flight'))`;
};

export async function countUnneededCards(db: Tx, cut: Date): Promise<number> {
  const [row] = await selectRows(db, sql`select count(*)::int as n from cards c where ${unneeded(sql`c`, cut)}`);
  return Number(row?.n ?? 0);
}

/**
 * One batch: the next `limit` unneeded cards after `afterId` in id order (a keyset walk, so a
 * run reads the table once however few cards go), deleted by the same test in the same
 * statement. Returns how many went and the last id looked at (undefined: the walk is done).
 */
export async function deleteUnneededCards(tx: Tx, cut: Date, afterId: string | undefined, limit: number): Promise<{ deleted: number; lastId: string | undefined }> {
  const from = afterId ? sql`c.id > ${afterId}::uuid and` : sql``;
  const picked = await selectRows(tx, sql`select c.id from cards c where ${from} ${unneeded(sql`c`, cut)} order by c.id limit ${limit} for update skip locked`);
  if (picked.length === 0) return { deleted: 0, lastId: undefined };
  const ids = picked.map((r) => r.id as string);
  const [row] = await selectRows(tx, sql`with d as (delete from cards c where c.id in ${uuidList(ids)} and ${unneeded(sql`c`, cut)} returning 1) select count(*)::int as n from d`);
  return { deleted: Number(row?.n ?? 0), lastId: picked.length < limit ? undefined : ids[ids.length - 1] };
}
