// The live rows of the overview (queue, webhook backlog, batches in progress). The server
// renders them once; console.js redraws the same rows from /console/api/live.json with the
// same data attributes, so a test reads either the same way.
import type { BatchProgress, Queue, WebhookBacklog } from '../../../reports/schema.ts';
import { count, html, type Html } from '../html.ts';
import { ordersHref } from './links.ts';

const row = (label: string, key: string, value: string | number | null) => html`<tr><th>${label}</th><td data-figure="${key}">${typeof value === 'number' ? count(value) : (value ?? '–')}</td></tr>`;

export function queueRows(q: Queue): Html {
  return html`${row('Depth (MIT orders in the engine)', 'queue-depth', q.depth)}${row('To plan (SUBMITTED)', 'queue-toPlan', q.toPlan)}${row('Due now', 'queue-dueNow', q.dueNow)}${row('Scheduled later', 'queue-scheduled', q.scheduled)}${row('Parked (to reconcile)', 'queue-parked', q.parked)}${row('Awaiting an updated card', 'queue-awaitingCard', q.awaitingCard)}${row('In flight', 'queue-inFlight', q.inFlight)}${row('Awaiting challenge (CIT)', 'queue-awaitingChallenge', q.awaitingChallenge)}${row('Oldest due since', 'queue-oldestDueAt', q.oldestDueAt)}`;
}

export function webhookRows(w: WebhookBacklog): Html {
  return html`${row('Pending', 'webhooks-pending', w.pending)}${row('Due now', 'webhooks-dueNow', w.dueNow)}${row('Delivering', 'webhooks-delivering', w.delivering)}${row('Dead letters', 'webhooks-dead', w.dead)}${row('Disabled endpoints', 'webhooks-disabledEndpoints', w.disabledEndpoints)}${row('Oldest pending since', 'webhooks-oldestPendingAt', w.oldestPendingAt)}`;
}

export function batchRows(batches: BatchProgress[]): Html {
  if (!batches.length) return html`<tr><td colspan="10" class="empty">none</td></tr>`;
  return html`${batches.map((b) => html`<tr data-batch="${b.batchId}" data-phase="${b.phase}"><th>${b.phase === 'ingesting' ? b.fileName : html`<a href="${ordersHref({ batch: b.batchId })}" data-link="batch">${b.fileName}</a>`}</th><td>${b.phase}</td><td>${b.mid}</td><td>${b.receivedAt}</td><td>${count(b.accepted)}</td><td>${count(b.rejected)}</td><td data-cell="final">${count(b.final)}</td><td>${count(b.approved)}</td><td>${count(b.expired)}</td><td><progress max="1" value="${b.progress}" data-cell="progress">${Math.round(b.progress * 100)}%</progress> ${Math.round(b.progress * 100)}%</td></tr>`)}`;
}
