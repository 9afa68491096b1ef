// The wake-up of one attempt per card at a time (src/engine/card-busy.ts): the PENDING orders
// of the given cards that come due within `until` are made due now, in one statement. The
// range on next_attempt_at lets orders_due_idx bound the rows read by what is due in the next
// minute, not by how many orders a card has.
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';

export async function wakeCardWaiters(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date, until: Date): Promise<void> {
  if (cards.length === 0) return;
  const keys = [...new Map(cards.map((c) => [`${c.merchantId}\u0000${c.cardToken}`, { m: c.merchantId, t: c.cardToken }])).values()];
  await db.execute(sql`update orders o set next_attempt_at = ${now.toISOString()}::timestamptz
    from json_to_recordset(${JSON.stringify(keys)}::json) as k(m uuid, t text)
    where o.status = 'PENDING' and o.merchant_id = k.m and o.card_token = k.t
      and o.next_attempt_at > ${now.toISOString()}::timestamptz and o.next_attempt_at <= ${until.toISOString()}::timestamptz`);
}
