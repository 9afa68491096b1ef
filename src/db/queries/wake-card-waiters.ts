// The wake-up of one attempt per card at a time (src/engine/card-busy.ts): the PENDING orders
// of the given cards that come due within `until` are made due now, in one statement. The
// range on next_attempt_at lets orders_due_idx bound the rows read by what is due in the next
// minute, not by how many orders a card has.
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';
import { cardKeysJson } from './card-histories.ts';
import { rowsOf } from './raw-rows.ts';

export async function wakeCardWaiters(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date, until: Date): Promise<void> {
  if (cards.length === 0) return;
  await db.execute(sql`update orders o set next_attempt_at = ${now.toISOString()}::timestamptz
    from json_to_recordset(${cardKeysJson(cards)}::json) as k(m uuid, t text)
    where o.status = 'PENDING' and o.merchant_id = k.m and o.card_token = k.t
      and o.next_attempt_at > ${now.toISOString()}::timestamptz and o.next_attempt_at <= ${until.toISOString()}::timestamptz`);
}

/**
 * After a claim has committed its busy orders as waiting (claim.ts, `replan`): those whose card
 * has no attempt in flight any more (started after `inFlightSince`, the lease's start) are made
 * due now. The answer's own wake-up can come while such an order is still PROCESSING under the
 * claim, find nothing to wake, and leave it waiting its whole minute; this look, made after the
 * commit, sees that answer. Cards are keyed as the claim counts them: the order's credential,
 * else its card token.
 */
export async function wakeIfCardIdle(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date, until: Date, inFlightSince: Date): Promise<number> {
  if (cards.length === 0) return 0;
  const result = await db.execute(sql`update orders o set next_attempt_at = ${now.toISOString()}::timestamptz
    from json_to_recordset(${cardKeysJson(cards)}::json) as k(m uuid, t text)
    where o.status = 'PENDING' and o.merchant_id = k.m and coalesce(o.credential, o.card_token) = k.t
      and o.next_attempt_at > ${now.toISOString()}::timestamptz and o.next_attempt_at <= ${until.toISOString()}::timestamptz
      and not exists (select 1 from attempts a where a.merchant_id = k.m and a.card_token = k.t and a.status = 'in_flight'
        and a.started_at > ${inFlightSince.toISOString()}::timestamptz)
    returning o.id`);
  return rowsOf(result).length;
}
