// Orders by state and the recovery figures by reason code, brand, merchant and overall, in
// ONE pass over the orders of the scope: GROUPING SETS lets PostgreSQL hash every breakdown
// while reading each row once, instead of one scan per breakdown. The rows are tiny (a few
// per status, code, brand, merchant and currency); src/reports/figures.ts folds them.
//
// Index use: with a merchant, orders_merchant_order_id_uq (merchant_id leads) narrows the
// scan to that merchant's orders; across merchants it is a sequential scan, the cheapest way
// to read every row once. `since` filters as it reads (no index on created_at: one would
// slow every insert of the intake, which is measured in rows per second).
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import { num, scopeWhere, type ReportScope } from './scope.ts';

/** Which breakdown a row belongs to, from the GROUPING() bits of the statement. */
export type FigureSet = 'state' | 'code' | 'brand' | 'merchant' | 'overall';

export interface FigureRow {
  set: FigureSet;
  status: string | null;
  declineSource: string | null;
  declineCode: string | null;
  cardBrand: string | null;
  merchantId: string | null;
  mid: string | null;
  merchantName: string | null;
  currency: string | null;
  orders: number;
  recovered: number;
  lost: number;
  cancelled: number;
  recoveredAmount: number;
  refundedAmount: number;
  lostAmount: number;
}

function setOf(r: Record<string, unknown>): FigureSet {
  if (num(r.g_status) === 0) return 'state';
  if (num(r.g_code) === 0) return 'code';
  if (num(r.g_brand) === 0) return 'brand';
  if (num(r.g_merchant) === 0) return 'merchant';
  return 'overall';
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export async function orderFigureRows(db: Db, scope: ReportScope): Promise<FigureRow[]> {
  const result = await db.execute(sql`
    with f as (
      select grouping(o.status) as g_status, grouping(o.decline_source) as g_code, grouping(o.card_brand) as g_brand, grouping(o.merchant_id) as g_merchant,
        o.status, o.decline_source, o.decline_code, o.card_brand, o.merchant_id, o.currency,
        count(*) as orders,
        count(*) filter (where o.status = 'APPROVED') as recovered,
        count(*) filter (where o.status in ('DECLINED', 'EXPIRED')) as lost,
        count(*) filter (where o.status = 'CANCELLED') as cancelled,
        coalesce(sum(o.amount::bigint) filter (where o.status = 'APPROVED'), 0) as recovered_amount,
        coalesce(sum(o.refunded_amount::bigint) filter (where o.status = 'APPROVED'), 0) as refunded_amount,
        coalesce(sum(o.amount::bigint) filter (where o.status in ('DECLINED', 'EXPIRED')), 0) as lost_amount
      from orders o
      where ${scopeWhere('o', scope, 'created_at')}
      group by grouping sets ((o.status), (o.decline_source, o.decline_code, o.card_brand, o.currency), (o.card_brand, o.currency), (o.merchant_id, o.currency), (o.currency))
    )
    select f.*, m.mid, m.name as merchant_name from f left join merchants m on m.id = f.merchant_id`);
  return rowsOf(result).map((r) => ({
    set: setOf(r),
    status: text(r.status),
    declineSource: text(r.decline_source),
    declineCode: text(r.decline_code),
    cardBrand: text(r.card_brand),
    merchantId: text(r.merchant_id),
    mid: text(r.mid),
    merchantName: text(r.merchant_name),
    currency: text(r.currency),
    orders: num(r.orders),
    recovered: num(r.recovered),
    lost: num(r.lost),
    cancelled: num(r.cancelled),
    recoveredAmount: num(r.recovered_amount),
    refundedAmount: num(r.refunded_amount),
    lostAmount: num(r.lost_amount),
  }));
}
