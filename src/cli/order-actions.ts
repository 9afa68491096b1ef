// What `rescued orders …` does once its command runs here (src/cli/orders.ts defines the
// commands): loaded only then, since it brings the database queries, and a command a running
// daemon answers never needs it. Cards appear as brand and last four digits only.
import type { Reader } from './context.ts';
import { merchantByMid } from './merchant-ref.ts';
import { MAX_PAGE, orderListItem, orderPage, parseOrderQuery, type OrderListItem } from '../orders/listing.ts';
import { batchIdFor } from '../orders/batch-view.ts';
import { listAttempts, type AttemptWithAccount } from '../db/queries/find-order.ts';
import { gatewayView } from '../orders/view.ts';
import { findOrderByKey } from '../db/queries/order-by-key.ts';
import { RescuedError } from '../errors.ts';
import { requestTexts, resolveOriginalDecline } from '../declines/original.ts';
import { majorUnits } from '../reports/money.ts';
import type { Print } from '../admin/io.ts';
import type { Progress } from './progress.ts';

type Found = NonNullable<Awaited<ReturnType<typeof findOrderByKey>>>;

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** The view printed: what an operator needs to understand the order, nothing that identifies the card. */
export function orderView(found: Found, attempts: AttemptWithAccount[]) {
  const o = found.order;
  const decline = resolveOriginalDecline({ declineSource: o.declineSource, declineCode: o.declineCode, cardBrand: o.cardBrand, ...requestTexts(o.request), at: o.createdAt });
  const open = o.status === 'SUBMITTED' || o.status === 'PENDING' || o.status === 'PROCESSING';
  return {
    orderSessionKey: o.id,
    orderId: o.orderId,
    mid: found.mid,
    kind: o.kind,
    status: o.status,
    reason: o.statusReason,
    // Minor units and the card as {brand, last4}: the shapes of every JSON output (docs/cli.md).
    amount: o.amount,
    currency: o.currency,
    card: { brand: o.cardBrand, last4: o.cardLast4 },
    originalDecline: { code: o.declineCode, source: o.declineSource, reason: decline.reason, class: decline.class },
    expiresAt: iso(o.expiresAt),
    createdAt: iso(o.createdAt),
    finishedAt: iso(o.finishedAt),
    confirmationId: o.confirmationId,
    attempts: attempts.map((a) => ({
      attemptNo: a.attemptNo,
      status: a.status,
      startedAt: iso(a.startedAt),
      why: a.planReason,
      responseCode: a.responseCode,
      adviceCode: a.adviceCode,
      class: a.declineClass,
      reason: a.reason,
      processorRef: a.processorRef,
      gateway: gatewayView(a),
      latencyMs: a.latencyMs,
    })),
    next: open && o.status !== 'PROCESSING' ? { at: iso(o.nextAttemptAt), why: o.planReason } : null,
    inFlight: o.status === 'PROCESSING' ? { leaseOwner: o.leaseOwner, leaseExpiresAt: iso(o.leaseExpiresAt) } : null,
  };
}

export function orderText(v: ReturnType<typeof orderView>): string {
  const lines = [
    `order ${v.orderSessionKey} (${v.orderId}) of merchant ${v.mid}`,
    `  status:   ${v.status}${v.reason ? ` (${v.reason})` : ''}`,
    `  amount:   ${majorUnits(v.amount, v.currency)} ${v.currency}, ${v.card.brand ?? 'card'} ending ${v.card.last4 ?? '????'}`,
    `  declined: ${v.originalDecline.code} (${v.originalDecline.source}) → ${v.originalDecline.reason}, ${v.originalDecline.class} · created ${v.createdAt} · expires ${v.expiresAt ?? '-'}`,
  ];
  if (v.confirmationId) lines.push(`  confirmation: ${v.confirmationId}`);
  lines.push(v.attempts.length ? '  attempts:' : '  attempts: none yet');
  for (const a of v.attempts) {
    const result = a.status === 'declined' ? `declined ${a.responseCode}${a.adviceCode ? ` MAC ${a.adviceCode}` : ''} ${a.reason ?? ''} [${a.class ?? '?'}]` : `${a.status}${a.responseCode ? ` ${a.responseCode}` : ''}`;
    lines.push(`    #${a.attemptNo} ${a.startedAt}  ${result.trim()}  (why: ${a.why ?? 'first look'}${a.latencyMs !== null ? `, ${a.latencyMs} ms` : ''})`);
    const g = a.gateway;
    if (g) lines.push(`        via ${g.account ?? 'sandbox'} (${g.type ?? 'sandbox'}, ${g.route ?? '-'})${g.rawCode ? ` raw ${g.rawCode}` : ''}${g.rawMessage ? ` "${g.rawMessage}"` : ''}${g.networkTransactionId ? ` ntid ${g.networkTransactionId}` : ''}`);
  }
  if (v.next) lines.push(`  next attempt: ${v.next.at} (why: ${v.next.why ?? 'to be planned'})`);
  else if (v.inFlight) lines.push(`  in flight: held by ${v.inFlight.leaseOwner} until ${v.inFlight.leaseExpiresAt}`);
  else lines.push(`  next attempt: none (${v.reason ?? v.status})`);
  return lines.join('\n');
}

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
  const query = parseOrderQuery({ status: opts.status, since: opts.since, batchId }, new Date());
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
  const query = parseOrderQuery({ orderId: opts.orderId, limit: MAX_PAGE }, new Date());
  const found = (await orderPage(core.database.db, merchantId, query)).orders.map(orderListItem);
  if (found.length === 0) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No order with orderId ${opts.orderId}${opts.merchant ? ` of merchant ${opts.merchant}` : ''}.`);
  print(opts.json ? found : orderTable(found), opts.json);
}
