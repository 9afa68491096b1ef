// The orders page: the orders behind a figure of the overview (a state, a decline reason, a
// batch), newest first or, for a batch, in file order; a page at a time. Each links to its
// order page. The card is brand and last four only, as in every listing.
import type { OrderListRow } from '../../../db/queries/list-orders.ts';
import type { OrderPage } from '../../../orders/listing.ts';
import { majorUnits } from '../../../reports/money.ts';
import { html, type Html } from '../html.ts';
import type { OrdersFilter } from '../orders-list.ts';
import { batchesHref, orderHref, ordersHref, overviewHref } from './links.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : '–');

function title(f: OrdersFilter): string {
  const parts = [
    f.state && `state ${f.state}`,
    f.reason && `decline reason ${f.reason}${f.class ? ` (${f.class})` : ''}`,
    f.batch && `batch ${f.batch}`,
    f.merchant && `merchant ${f.merchant}`,
    f.since && `created since ${f.since}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every order';
}

function row(o: OrderListRow): Html {
  return html`<tr data-order="${o.id}"><th><a href="${orderHref(o.id)}">${o.orderId}</a></th><td><span class="status s-${o.status}">${o.status}</span></td><td>${o.mid}</td><td>${o.kind}</td><td class="num">${majorUnits(o.amount, o.currency)} ${o.currency}</td><td>${o.cardBrand ?? 'card'} …${o.cardLast4 ?? '••••'}</td><td class="num">${o.attemptCount}</td><td>${o.batchId ? html`#${o.sequenceNumber ?? '?'}` : '–'}</td><td>${iso(o.createdAt)}</td></tr>`;
}

export function ordersTable(page: OrderPage): Html {
  if (!page.orders.length) return html`<p class="empty" data-empty="orders">No orders.</p>`;
  return html`<div class="scroll"><table class="grid" id="orders"><thead><tr><th>Order id</th><th>State</th><th>Merchant</th><th>Kind</th><th>Amount</th><th>Card</th><th>Attempts</th><th>In batch</th><th>Created</th></tr></thead>
<tbody>${page.orders.map(row)}</tbody></table></div>`;
}

export function ordersBody(f: OrdersFilter, page: OrderPage): Html {
  const next = page.nextCursor ? html`<p><a rel="next" data-link="next" href="${ordersHref({ ...f, cursor: page.nextCursor })}">Next ${page.orders.length} orders</a></p>` : '';
  return html`<h1>Orders <small data-filter>${title(f)}</small></h1>
<p class="note"><a href="${overviewHref(f.merchant, f.since)}">Back to the overview</a>${f.batch ? html` · <a href="${batchesHref(f.merchant)}">Batches</a>` : ''}</p>
<section>${ordersTable(page)}${next}</section>`;
}

/** Several merchants' orders carry the orderId that was looked up: the operator picks one. */
export function lookupBody(key: string, page: OrderPage): Html {
  return html`<h1>Orders with orderId <small>${key}</small></h1>
<p class="note">More than one merchant has an order with this orderId.</p>
<section>${ordersTable(page)}</section>`;
}
