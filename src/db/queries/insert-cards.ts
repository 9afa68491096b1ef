import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards } from '../schema.ts';

// lastTokenizedAt is the retention rule's alone (schema.ts): nothing else reads it. The payer
// columns are the payer-card queries' alone (payer-cards.ts).
type Private = 'lastTokenizedAt' | 'payerId' | 'payerLinkedAt';
export type CardRow = Omit<typeof cards.$inferSelect, Private>;
export type NewCardRow = Omit<typeof cards.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | Private> & { merchantId: string; fingerprint: string; token: string };

export interface InsertedOrFound {
  row: CardRow;
  /** False when the merchant already had a card with this fingerprint: `row` is that one. */
  inserted: boolean;
}

type Raw = Record<string, unknown>;
const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Raw[];
const text = (values: readonly unknown[]) => sql.param(values.map((v) => (v === null || v === undefined ? null : String(v))));
const date = (v: unknown): Date => cards.createdAt.mapFromDriverValue(v as string) as Date;
const keyOf = (merchantId: unknown, fingerprint: unknown) => `${String(merchantId)}:${String(fingerprint)}`;

function existing(r: Raw): CardRow {
  return {
    id: String(r.id), token: String(r.token), merchantId: String(r.merchantId), fingerprint: String(r.fingerprint),
    sealed: String(r.sealed), keyId: String(r.keyId), bin: String(r.bin), last4: String(r.last4),
    expMonth: Number(r.expMonth), expYear: Number(r.expYear), brand: r.brand === null ? null : String(r.brand),
    test: r.test === true, createdAt: date(r.createdAt), updatedAt: date(r.updatedAt),
  };
}

/**
 * A card presented again stays in the vault (the retention rule reads last_tokenized_at,
 * src/db/queries/purge-cards.ts). Written at most once a day per card, in a statement of its
 * own, only for the cards that need it: tokenizing at every checkout adds no write, and a
 * new card's insert does no more than before.
 */
async function markPresented(db: Db, raw: Raw[]): Promise<void> {
  const dayAgo = Date.now() - 86_400_000;
  const stale = raw.filter((r) => r.inserted !== true && date(r.lastTokenizedAt).getTime() < dayAgo).map((r) => String(r.id));
  if (stale.length === 0) return;
  await db.execute(sql`update ${cards} set last_tokenized_at = now() where id in (select x::uuid from unnest(${text(stale)}::text[]) as x)`);
}

/**
 * Inserts the new cards and reads back the ones the merchant already had (same
 * fingerprint), in one statement; a card that appears twice in `rows` is inserted once.
 * Answers per input row, in order; a row is missing only if another transaction inserted
 * its card while this statement ran (the caller reads those again).
 *
 * The rows travel as one text array per column (unnest), not as a VALUES list: the
 * statement stays the same size whatever the batch, and PGlite, which runs statements one
 * at a time in-process, pays a fixed cost per statement that a batch shares. Only what the
 * database made (id, created_at) is read back for inserted rows; the rest is what was sent.
 * The insert's select list follows the table's column order.
 */
export async function insertOrFindCards(db: Db, rows: readonly NewCardRow[]): Promise<(InsertedOrFound | undefined)[]> {
  const col = <K extends keyof NewCardRow>(k: K) => sql`${text(rows.map((r) => r[k]))}::text[]`;
  const result = await db.execute(sql`
    with x as (
      select * from unnest(${col('token')}, ${col('merchantId')}, ${col('fingerprint')}, ${col('sealed')}, ${col('keyId')}, ${col('bin')},
        ${col('last4')}, ${col('expMonth')}, ${col('expYear')}, ${col('brand')}, ${col('test')})
        as x(token, merchant_id, fingerprint, sealed, key_id, bin, last4, exp_month, exp_year, brand, test)
    ), ins as (
      insert into ${cards}
      select gen_random_uuid(), token, merchant_id::uuid, fingerprint, sealed, key_id, bin, last4, exp_month::int2, exp_year::int2,
        brand, coalesce(test::boolean, false), now(), now()
      from x
      on conflict (merchant_id, fingerprint) do nothing
      returning id, token, created_at
    )
    select true as "inserted", id, token, null as "merchantId", null as "fingerprint", null as "sealed", null as "keyId", null as "bin",
      null as "last4", null::int2 as "expMonth", null::int2 as "expYear", null as "brand", null::boolean as "test", created_at as "createdAt", created_at as "updatedAt",
      null::timestamptz as "lastTokenizedAt"
    from ins
    union all
    select false, c.id, c.token, c.merchant_id::text, c.fingerprint, c.sealed, c.key_id, c.bin, c.last4, c.exp_month, c.exp_year, c.brand, c.test,
      c.created_at, c.updated_at, c.last_tokenized_at
    from ${cards} c join (select distinct merchant_id::uuid as m, fingerprint as f from x) k on c.merchant_id = k.m and c.fingerprint = k.f`);
  const byToken = new Map(rows.map((r) => [r.token, r]));
  const found = new Map<string, InsertedOrFound>();
  const raw = rowsOf(result);
  await markPresented(db, raw);
  for (const r of raw) {
    if (r.inserted === true) {
      const sent = byToken.get(String(r.token))!;
      const createdAt = date(r.createdAt);
      const row: CardRow = { ...sent, brand: sent.brand ?? null, test: sent.test ?? false, id: String(r.id), createdAt, updatedAt: createdAt };
      found.set(keyOf(row.merchantId, row.fingerprint), { row, inserted: true });
    } else {
      const row = existing(r);
      found.set(keyOf(row.merchantId, row.fingerprint), { row, inserted: false });
    }
  }
  // The same card twice in one batch: the row carries the token of the one inserted.
  return rows.map((r) => {
    const hit = found.get(keyOf(r.merchantId, r.fingerprint));
    return hit && { row: hit.row, inserted: hit.inserted && hit.row.token === r.token };
  });
}
