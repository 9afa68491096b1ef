// What the console's orders and batches pages read. The orders page is the overview's figures
// turned back into orders: by state, by decline reason (with its class), by batch, by
// merchant and `since` — the same scope the overview was showing. A decline reason is not a
// column: the distinct original declines of the scope are classified once each, as the
// recovery report groups them (src/reports/figures.ts, byReason), and the orders whose decline
// classifies to the reason are listed.
import { declineKeys, declineTextKeys, type DeclineKey } from '../../db/queries/decline-keys.ts';
import { resolveOriginalDecline, textCanDecide } from '../../declines/original.ts';
import { findOrderByKey } from '../../db/queries/order-by-key.ts';
import { orderPage, parseOrderQuery, type OrderPage } from '../../orders/listing.ts';
import { batchPage, type BatchPage } from '../../orders/batch-view.ts';
import { scopeOf, str, type Query } from './live.ts';
import type { ConsoleDeps } from './deps.ts';

export type OrdersQuery = Query & { state?: unknown; reason?: unknown; class?: unknown; batch?: unknown; cursor?: unknown };

/** The filters as the page echoes them (and its links carry on). */
export interface OrdersFilter {
  state: string;
  reason: string;
  class: string;
  batch: string;
  merchant: string;
  since: string;
}

export const PAGE_SIZE = 50;

export function filterOf(q: OrdersQuery): OrdersFilter {
  return { state: str(q.state).toUpperCase(), reason: str(q.reason), class: str(q.class), batch: str(q.batch).toLowerCase(), merchant: str(q.merchant).toLowerCase(), since: str(q.since) };
}

/** The declines of the scope that the report counts under `reason` (and `class`, when given). */
async function declinesFor(deps: ConsoleDeps, f: OrdersFilter, scope: Parameters<typeof declineKeys>[1]): Promise<DeclineKey[]> {
  const keys = await declineKeys(deps.db, scope);
  // The one resolution of the report and the order page: where the request's text can decide
  // the reason (a Stripe code, a code in no table), each text is a key of its own.
  const textual = keys.filter((k) => textCanDecide(k.source, k.code));
  const all = [...keys.filter((k) => !textCanDecide(k.source, k.code)), ...(await declineTextKeys(deps.db, scope, textual))];
  return all.filter((k) => {
    const c = resolveOriginalDecline({ declineSource: k.source, declineCode: k.code, cardBrand: k.brand, merchantAdviceCode: k.advice, responseDescription: k.texts?.description, responseSubStatus: k.texts?.subStatus });
    return c.reason === f.reason && (!f.class || c.class === f.class);
  });
}

export async function consoleOrders(deps: ConsoleDeps, q: OrdersQuery): Promise<{ filter: OrdersFilter; page: OrderPage }> {
  const filter = filterOf(q);
  const scope = await scopeOf(deps, { merchant: filter.merchant });
  const query = await parseOrderQuery({ status: filter.state, batchId: filter.batch, since: filter.since, cursor: str(q.cursor), limit: PAGE_SIZE }, deps.clock.now());
  const since = query.since === undefined ? undefined : new Date(query.since);
  const declines = filter.reason ? await declinesFor(deps, filter, { merchantId: scope.merchantId, since, status: query.status, batchId: query.batchId?.toLowerCase() }) : undefined;
  return { filter, page: await orderPage(deps.db, scope.merchantId, query, declines ? { declines } : {}) };
}

/**
 * "Open order": an orderSessionKey, or a merchant's own orderId (of any merchant, or of the
 * merchant in scope). One order: its page; several merchants' orders with that orderId: the
 * list of them; none: undefined.
 */
export async function lookupOrder(deps: ConsoleDeps, key: string, merchant: string): Promise<{ orderSessionKey: string } | { page: OrderPage } | undefined> {
  const byKey = await findOrderByKey(deps.db, key);
  if (byKey) return { orderSessionKey: byKey.order.id };
  if (key.length > 255) return undefined;
  const scope = await scopeOf(deps, { merchant });
  const page = await orderPage(deps.db, scope.merchantId, { orderId: key, limit: PAGE_SIZE });
  if (page.orders.length === 0) return undefined;
  return page.orders.length === 1 ? { orderSessionKey: page.orders[0]!.id } : { page };
}

export async function consoleBatches(deps: ConsoleDeps, q: Query & { cursor?: unknown }): Promise<{ merchant: string; page: BatchPage }> {
  const scope = await scopeOf(deps, { merchant: q.merchant });
  const cursor = str(q.cursor) || undefined;
  return { merchant: scope.mid ?? '', page: await batchPage(deps.db, scope.merchantId, PAGE_SIZE, cursor) };
}
