// What recovered the APPROVED orders of the scope (docs/engine.md "Card updates"): one row per
// cause and currency. An approval recorded before the column, or at evaluate, counts as a
// retry's (src/orders/view.ts recoveredBy reads it alike).
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import { num, scopeWhere, type ReportScope } from './scope.ts';

export interface CauseRow {
  cause: string;
  currency: string;
  orders: number;
  amount: number;
  refunded: number;
}

export async function recoveryCauseRows(db: Db, scope: ReportScope): Promise<CauseRow[]> {
  const result = await db.execute(sql`
    select coalesce(o.recovered_by, 'retry') as cause, o.currency, count(*) as orders,
      coalesce(sum(o.amount::bigint), 0) as amount, coalesce(sum(o.refunded_amount::bigint), 0) as refunded
    from orders o
    where ${scopeWhere('o', scope, 'created_at', [sql`o.status = 'APPROVED'`])}
    group by 1, 2`);
  return rowsOf(result).map((r) => ({ cause: String(r.cause), currency: String(r.currency), orders: num(r.orders), amount: num(r.amount), refunded: num(r.refunded) }));
}
