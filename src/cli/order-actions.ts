// What `rescued orders …` does once its command runs here (src/cli/orders.ts defines the
// commands): loaded only then, since it brings the database queries, and a command a running
// daemon answers never needs it. Cards appear as brand and last four digits only.
import type { Reader } from './context.ts';
import { merchantByMid } from './merchant-ref.ts';
import { MAX_PAGE, orderListItem, orderPage, parseOrderQuery, type OrderListItem } from '../orders/listing.ts';
import { RescuedError } from '../errors.ts';
import { majorUnits } from '../reports/money.ts';
import type { Print } from '../admin/io.ts';
import type { Progress } from './progress.ts';

const COLUMNS = ['ORDER SESSION KEY', 'ORDER ID', 'STATUS', 'AMOUNT', 'CUR', 'CARD', 'CREATED', 'BATCH', 'MID'] as const;
/** Columns whose values are numbers: right-aligned, as a person compares them. */
const RIGHT = new Set<string>(['AMOUNT']);

function orderCells(o: OrderListItem): string[] {
  return [
    o.orderSessionKey,
    o.orderId,
    o.status,
    majorUnits(o.amount, o.currency),
    o.currency,
    `${o.card.brand ?? 'card'} ${o.card.last4 ?? '????'}`,
    o.createdAt,
    o.batchId ? `${o.batchId.slice(0, 8)}#${o.sequenceNumber}` : '-',
    o.mid,
  ];
}

/** The orders as a table: a header row, then one aligned line per order (no card number). */
export function orderTable(orders: OrderListItem[]): string {
  const rows = [[...COLUMNS] as string[], ...orders.map(orderCells)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const last = COLUMNS.length - 1;
  return rows
    .map((r) => r.map((cell, i) => (RIGHT.has(COLUMNS[i]!) ? cell.padStart(widths[i]!) : i === last ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

export interface ListOptions {
  merchant?: string;
  status?: string;
  batch?: string;
  since?: string;
  limit?: string;
  json?: boolean;
}

/** The merchant's internal id for `--merchant <mid>`; ERR_MERCHANT_NOT_FOUND when there is none. */
const merchantIdOf = async (core: Reader, mid: string | undefined) => (mid ? (await merchantByMid(core, mid)).id : undefined);

/** `--batch` by id or file name (the latest of that name), within `--merchant` when given. */
async function batchIdOf(core: Reader, ref: string | undefined, merchantId: string | undefined): Promise<string | undefined> {
  if (!ref) return undefined;
  // Loaded for --batch only: the batch views bring the ack and results modules with them.
  const { batchIdFor } = await import('../orders/batch-view.ts');
  const batchId = await batchIdFor(core.database.db, ref, merchantId);
  if (!batchId) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No batch ${ref}${merchantId ? ' of this merchant' : ''}.`);
  return batchId;
}

/**
 * Up to `--limit` orders, read a page of at most MAX_PAGE at a time (the API's pages, by
 * keyset); a long read shows its progress on a terminal.
 */
export async function listOrders(core: Reader, opts: ListOptions, progressFor: (total: number) => Progress) {
  const limit = opts.limit === undefined ? 50 : Number(opts.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RescuedError('ERR_MODEL_INVALID', '--limit must be a whole number of at least 1.');
  const merchantId = await merchantIdOf(core, opts.merchant);
  const batchId = await batchIdOf(core, opts.batch, merchantId);
  const query = await parseOrderQuery({ status: opts.status, since: opts.since, batchId }, new Date());
  const found: OrderListItem[] = [];
  const progress = progressFor(limit);
  let cursor: string | undefined;
  try {
    for (;;) {
      const page = await orderPage(core.database.db, merchantId, { ...query, limit: Math.min(MAX_PAGE, limit - found.length), ...(cursor ? { cursor } : {}) });
      found.push(...page.orders.map(orderListItem));
      progress.update(found.length);
      if (!page.nextCursor || found.length >= limit) return { orders: found, more: page.nextCursor !== null };
      cursor = page.nextCursor;
    }
  } finally {
    progress.finish();
  }
}

export async function showOrder(core: Reader, print: Print, key: string, opts: { json?: boolean }): Promise<void> {
  const [{ findOrderByKey }, { listAttempts }, { orderView, orderText }] = await Promise.all([
    import('../db/queries/order-by-key.ts'),
    import('../db/queries/find-order.ts'),
    import('./order-view.ts'),
  ]);
  const found = await findOrderByKey(core.database.db, key);
  if (!found) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No order with orderSessionKey ${key}.`);
  const view = orderView(found, await listAttempts(core.database.db, found.order.id));
  print(opts.json ? view : orderText(view), opts.json);
}

export async function reconcileOrder(core: Reader, print: Print, key: string): Promise<void> {
  const { reconcileAgain } = await import('../db/queries/reconcile-again.ts');
  const done = await reconcileAgain(core.database.db, key, new Date());
  if (done === 'not_parked') throw new RescuedError('ERR_HTTP_NOT_FOUND', `No parked order ${key} (only an order PENDING with reason unreconciled can be sent back).`);
  print(`order ${key}: its attempt is reconciled again now, with a fresh processor.reconcileTimeoutMs`);
}

export async function printOrderList(core: Reader, print: Print, opts: ListOptions, progressFor: (total: number) => Progress): Promise<void> {
  const { orders: found, more } = await listOrders(core, opts, progressFor);
  if (opts.json) return print(found, true);
  const tail = more ? ['(more orders: raise --limit, or narrow with --since, --status or --batch)'] : [];
  print(found.length ? [orderTable(found), ...tail].join('\n') : '(no orders)');
}

export async function findOrders(core: Reader, print: Print, opts: { orderId?: string | undefined; merchant?: string; json?: boolean }): Promise<void> {
  if (!opts.orderId) throw new RescuedError('ERR_MODEL_REQUIRED', 'orders find needs the orderId: rescued orders find <orderId> [--merchant <mid>].');
  const merchantId = await merchantIdOf(core, opts.merchant);
  const query = await parseOrderQuery({ orderId: opts.orderId, limit: MAX_PAGE }, new Date());
  const found = (await orderPage(core.database.db, merchantId, query)).orders.map(orderListItem);
  if (found.length === 0) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No order with orderId ${opts.orderId}${opts.merchant ? ` of merchant ${opts.merchant}` : ''}.`);
  print(opts.json ? found : orderTable(found), opts.json);
}
