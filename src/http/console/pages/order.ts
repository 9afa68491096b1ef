// The order page: what happened to one order and why — the original decline and its
// canonical reason, every attempt in order with its raw and advice codes and the planner's
// reason for making it then, the planned next attempt (or why there is none), and the
// webhooks sent. The card is shown as brand, BIN and last four only.
import type { AttemptWithAccount, OrderRow } from '../../../db/queries/find-order.ts';
import { attemptView, cardUpdatesView, nextAttemptView, recoveredBy } from '../../../orders/view.ts';
import { requestTexts, resolveOriginalDecline } from '../../../declines/original.ts';
import { majorUnits } from '../../../reports/money.ts';
import { html, type Html } from '../html.ts';
import type { OrderWebhook } from '../order-webhooks.ts';

export interface OrderPageData {
  order: OrderRow;
  mid: string;
  attempts: AttemptWithAccount[];
  webhooks: OrderWebhook[];
}

const iso = (d: Date | null | undefined) => d?.toISOString() ?? '–';
const OPEN = new Set(['SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE']);

function facts(o: OrderRow, mid: string): Html {
  // The one resolution of the report, the engine and `orders show` (src/declines/original.ts).
  const decline = resolveOriginalDecline({ declineSource: o.declineSource, declineCode: o.declineCode, cardBrand: o.cardBrand, merchantAdviceCode: o.declineAdvice, ...requestTexts(o.request), at: o.createdAt });
  const rows: [string, string, string | Html][] = [
    ['Status', 'status', html`<span class="status s-${o.status}">${o.status}</span>${o.statusReason ? html` <span data-field="statusReason">(${o.statusReason})</span>` : ''}`],
    ['Order id', 'orderId', o.orderId],
    ['Merchant', 'mid', mid],
    ['Kind', 'kind', o.kind],
    ['Amount', 'amount', `${majorUnits(o.amount, o.currency)} ${o.currency}${o.refundedAmount ? ` (refunded ${majorUnits(o.refundedAmount, o.currency)})` : ''}`],
    ['Card', 'card', `${o.cardBrand ?? 'card'} ${o.cardBin ?? '••••••'}…${o.cardLast4 ?? '••••'}`],
    ['Original decline', 'decline', `${o.declineCode} (${o.declineSource}) → ${decline.reason}, ${decline.class}`],
    ['Batch', 'batch', o.batchId ? `${o.batchId} #${o.sequenceNumber ?? '?'}` : '–'],
    ['Created', 'createdAt', iso(o.createdAt)],
    ['Expires', 'expiresAt', iso(o.expiresAt)],
    ['Finished', 'finishedAt', iso(o.finishedAt)],
    ['Confirmation', 'confirmationId', o.confirmationId ?? '–'],
    ['Recovered by', 'recoveredBy', recoveredBy(o) ?? '–'],
  ];
  return html`<dl class="facts">${rows.map(([label, key, value]) => html`<div><dt>${label}</dt><dd data-field="${key}">${value}</dd></div>`)}</dl>`;
}

function attemptItem(a: AttemptWithAccount, o: OrderRow): Html {
  const v = attemptView(a, o);
  const g = v.gateway;
  return html`<li class="attempt a-${v.status}" data-attempt="${v.attemptNo}">
<div class="when"><b>#${v.attemptNo}</b> ${v.startedAt}${a.latencyMs !== null ? ` · ${a.latencyMs} ms` : ''}</div>
<div class="what"><span class="status" data-cell="status">${v.status}</span>
${v.responseCode ? html` code <code data-cell="responseCode">${v.responseCode}</code>` : ''}
${v.adviceCode ? html` advice <code data-cell="adviceCode">${v.adviceCode}</code>` : ''}
${v.reason ? html` <span data-cell="reason">${v.reason}</span>` : ''}${v.declineClass ? html` [<span data-cell="class">${v.declineClass}</span>]` : ''}</div>
<div class="why">why then: <span data-cell="planReason">${v.planReason ?? 'first look'}</span> · card <span data-cell="card">${v.card.source} …${v.card.last4 ?? '••••'}</span></div>
${g ? html`<div class="via">via <span data-cell="account">${g.account ?? 'sandbox'}</span> (${g.type ?? 'sandbox'}, route ${g.route ?? '–'})${g.rawCode ? html` raw <code data-cell="rawCode">${g.rawCode}</code>` : ''}${g.rawMessage ? html` “<span data-cell="rawMessage">${g.rawMessage}</span>”` : ''}${g.networkTransactionId ? html` ntid <code data-cell="ntid">${g.networkTransactionId}</code>` : ''}</div>` : ''}
${v.processorRef ? html`<div class="ref">processor ref <code>${v.processorRef}</code></div>` : ''}
</li>`;
}

/** An updated card on the timeline (order.card_updated): where it came from, BIN-free, last four only. */
function updateItem(u: ReturnType<typeof cardUpdatesView>[number]): Html {
  const what = u.kind === 'card' ? 'new card' : u.kind;
  return html`<li class="attempt a-update" data-update="${u.source}"><div class="when"><b>card updated</b> ${u.at}</div>
<div class="what"><span data-cell="source">${u.source}</span>: ${what}${u.last4 ? ` …${u.last4}` : ''}${u.expMonth && u.expYear ? ` exp ${String(u.expMonth).padStart(2, '0')}/${u.expYear}` : ''}</div></li>`;
}

/** Attempts and card updates in the order they happened (an update arrived after `afterAttempts` attempts). */
function timeline(o: OrderRow, attempts: AttemptWithAccount[]): Html[] {
  const updates = cardUpdatesView(o);
  const out: Html[] = [];
  for (let i = 0; i <= attempts.length; i++) {
    for (const u of updates) if (u.afterAttempts === i || (i === attempts.length && u.afterAttempts > i)) out.push(updateItem(u));
    if (i < attempts.length) out.push(attemptItem(attempts[i]!, o));
  }
  return out;
}

function next(o: OrderRow): Html {
  const view = nextAttemptView(o);
  const waiting = view && 'decline' in view && view.decline ? { ...view, decline: view.decline } : undefined;
  if (waiting) {
    return html`<li class="attempt a-next" data-next="awaiting-card"><div class="what">waiting for an updated card until ${waiting.until ?? '–'}: <span data-cell="planReason">${waiting.reason}</span> after <span data-cell="decline">${waiting.decline.reason}${waiting.decline.code ? ` (${waiting.decline.code})` : ''}</span></div></li>`;
  }
  if (o.status === 'PROCESSING') return html`<li class="attempt a-next" data-next="in-flight"><div class="what">in flight: held by ${o.leaseOwner ?? '?'} until ${iso(o.leaseExpiresAt)}</div></li>`;
  if (OPEN.has(o.status) && o.nextAttemptAt) {
    return html`<li class="attempt a-next" data-next="planned"><div class="when"><b>next</b> ${iso(o.nextAttemptAt)}</div><div class="why">why then: <span data-cell="planReason">${o.planReason ?? 'to be planned'}</span></div></li>`;
  }
  return html`<li class="attempt a-next" data-next="none"><div class="what">no next attempt: <span data-cell="planReason">${o.planReason ?? o.statusReason ?? o.status}</span></div></li>`;
}

function webhooks(list: OrderWebhook[]): Html {
  if (!list.length) return html`<p class="empty" id="webhooks-none">No webhook sent for this order.</p>`;
  return html`<table class="grid" id="order-webhooks"><thead><tr><th>Event</th><th>webhook-id</th><th>Created</th><th>Deliveries</th></tr></thead><tbody>
${list.map((w) => html`<tr data-webhook="${w.webhookId}"><th>${w.type}</th><td><code>${w.webhookId}</code></td><td>${iso(w.createdAt)}</td><td>${w.deliveries.map((d, i) => html`${i ? html`<br>` : ''}<span data-cell="delivery">${d.status}${d.isResent ? ' (resent)' : ''}, ${d.attempts} attempt(s)${d.lastStatusCode !== null ? `, last HTTP ${d.lastStatusCode}` : d.lastError ? `, last ${d.lastError}` : ''}${d.status === 'pending' ? `, next ${iso(d.nextAttemptAt)}` : ''}</span>`)}</td></tr>`)}
</tbody></table>`;
}

export function orderBody(d: OrderPageData): Html {
  const o = d.order;
  return html`<h1>Order <code data-field="orderSessionKey">${o.id}</code></h1>
${facts(o, d.mid)}
<section id="timeline"><h2>Attempts</h2>
<ol class="timeline">${timeline(o, d.attempts)}${next(o)}</ol></section>
<section id="webhooks-sent"><h2>Webhooks sent</h2>${webhooks(d.webhooks)}</section>`;
}
