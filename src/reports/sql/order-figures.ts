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
import { textCanDecide } from '../../declines/original.ts';

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
  /** The original decline's Mastercard advice (transaction.merchantAdviceCode), which can change its reason. */
  declineAdvice?: string | null;
  /** The request's transaction texts: read only for a code whose reason they can decide (textCanDecide). */
  responseDescription?: string | null;
  responseSubStatus?: string | null;
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

const AGGREGATES = sql`
        count(*) as orders,
        count(*) filter (where o.status = 'APPROVED') as recovered,
        count(*) filter (where o.status in ('DECLINED', 'EXPIRED')) as lost,
        count(*) filter (where o.status = 'CANCELLED') as cancelled,
        coalesce(sum(o.amount::bigint) filter (where o.status = 'APPROVED'), 0) as recovered_amount,
        coalesce(sum(o.refunded_amount::bigint) filter (where o.status = 'APPROVED'), 0) as refunded_amount,
        coalesce(sum(o.amount::bigint) filter (where o.status in ('DECLINED', 'EXPIRED')), 0) as lost_amount`;

function figureRow(r: Record<string, unknown>, set: FigureSet): FigureRow {
  return {
    set,
    status: text(r.status),
    declineSource: text(r.decline_source),
    declineCode: text(r.decline_code),
    cardBrand: text(r.card_brand),
    merchantId: text(r.merchant_id),
    mid: text(r.mid),
    merchantName: text(r.merchant_name),
    currency: text(r.currency),
    declineAdvice: text(r.decline_advice),
    ...('description' in r ? { responseDescription: text(r.description), responseSubStatus: text(r.sub_status) } : {}),
    orders: num(r.orders),
    recovered: num(r.recovered),
    lost: num(r.lost),
    cancelled: num(r.cancelled),
    recoveredAmount: num(r.recovered_amount),
    refundedAmount: num(r.refunded_amount),
    lostAmount: num(r.lost_amount),
  };
}

async function groupedRows(db: Db, scope: ReportScope): Promise<FigureRow[]> {
  const result = await db.execute(sql`
    with f as (
      select grouping(o.status) as g_status, grouping(o.decline_source) as g_code, grouping(o.card_brand) as g_brand, grouping(o.merchant_id) as g_merchant,
        o.status, o.decline_source, o.decline_code, o.decline_advice, o.card_brand, o.merchant_id, o.currency,
        ${AGGREGATES}
      from orders o
      where ${scopeWhere('o', scope, 'created_at')}
      group by grouping sets ((o.status), (o.decline_source, o.decline_code, o.decline_advice, o.card_brand, o.currency), (o.card_brand, o.currency), (o.merchant_id, o.currency), (o.currency))
    )
    select f.*, m.mid, m.name as merchant_name from f left join merchants m on m.id = f.merchant_id`);
  return rowsOf(result).map((r) => figureRow(r, setOf(r)));
}

/**
 * The figures of the orders whose reason the request's text decides (a code in no table, a
 * Stripe code), by code, brand, currency and the two texts. Only those orders' requests are
 * read: the text lives in the stored request, and parsing every order's request for it would
 * cost the report a multiple of its time.
 */
async function textRows(db: Db, scope: ReportScope, codes: Array<{ s: string | null; c: string | null }>): Promise<FigureRow[]> {
  const result = await db.execute(sql`
    select o.decline_source, o.decline_code, o.card_brand, o.currency, o.decline_advice,
      o.request->'transaction'->>'responseDescription' as description,
      o.request->'transaction'->>'responseSubStatus' as sub_status,
      ${AGGREGATES}
    from orders o
    where ${scopeWhere('o', scope, 'created_at')}
      and (o.decline_source, o.decline_code) in (select p.s, p.c from json_to_recordset(${JSON.stringify(codes)}::json) as p(s text, c text))
    group by 1, 2, 3, 4, 5, 6, 7`);
  return rowsOf(result).map((r) => figureRow(r, 'code'));
}

/**
 * Every breakdown in one pass; then, for the codes whose reason the request's text can
 * decide, their rows again split by that text, so that the report resolves each order's
 * decline as the engine and the order page do (src/declines/original.ts).
 */
export async function orderFigureRows(db: Db, scope: ReportScope): Promise<FigureRow[]> {
  const rows = await groupedRows(db, scope);
  const byText = (r: FigureRow) => r.set === 'code' && textCanDecide(r.declineSource, r.declineCode);
  const codes = new Map<string, { s: string | null; c: string | null }>();
  for (const r of rows) if (byText(r)) codes.set(`${r.declineSource}\u0000${r.declineCode}`, { s: r.declineSource, c: r.declineCode });
  if (codes.size === 0) return rows;
  return [...rows.filter((r) => !byText(r)), ...(await textRows(db, scope, [...codes.values()]))];
}
