// The batches page: every batch file, newest first — being ingested, rescuing, finished, and
// rejected whole with the ack's reason (src/intake/reject.ts) — a page at a time. A batch
// with orders links to them.
import type { BatchPage, BatchSummary } from '../../../orders/batch-view.ts';
import { count, html, type Html } from '../html.ts';
import { batchesHref, ordersHref } from './links.ts';

function state(b: BatchSummary): Html {
  if (b.progress) return html`ingesting <progress max="100" value="${b.progress.percent}">${b.progress.percent}%</progress> ${b.progress.percent}%`;
  if (b.error) return html`rejected whole`;
  if (b.status === 'rejected') return html`rejected (every entry)`;
  return html`${b.status}${b.resultsFile ? ' · results written' : ' · orders open'}`;
}

function reason(b: BatchSummary): Html {
  if (b.error) return html`<span class="error" data-code="${b.error.code}">${b.error.code}</span><br><span class="why">${b.error.message}</span>`;
  return html`${b.rejected ? `${count(b.rejected)} entries rejected (see the ack)` : '–'}`;
}

function row(b: BatchSummary): Html {
  const orders = b.accepted > 0 && !b.progress ? html`<a href="${ordersHref({ batch: b.batchId })}" data-link="orders">${count(b.accepted)} orders</a>` : html`${count(b.accepted)}`;
  return html`<tr data-batch="${b.batchId}" data-file="${b.fileName}" data-status="${b.error ? 'rejected-whole' : b.progress ? 'ingesting' : b.status}"><th>${b.fileName}</th><td>${b.mid}</td><td>${state(b)}</td><td>${reason(b)}</td><td>${b.receivedAt}</td><td class="num">${b.bytes === null ? '–' : count(b.bytes)}</td><td class="num">${count(b.entries)}</td><td class="num">${orders}</td></tr>`;
}

export function batchesBody(merchant: string, page: BatchPage): Html {
  const held = page.held ? html`<p class="note">The embedded database is busy ingesting a file: ${page.held.asOf ? `the other batches are as of ${page.held.asOf}` : 'the other batches are listed once it is committed'}.</p>` : '';
  const next = page.nextCursor ? html`<p><a rel="next" data-link="next" href="${batchesHref(merchant, page.nextCursor)}">More batches</a></p>` : '';
  return html`<h1>Batches <small>${merchant ? `merchant ${merchant}` : 'all merchants'}</small></h1>
<p class="note">Every batch file, newest first: being ingested, rescuing, finished, and rejected whole with the reason its ack gives. Sizes in bytes, as received.</p>
${held}<section>${page.batches.length ? html`<div class="scroll"><table class="grid" id="batch-list"><thead><tr><th>File</th><th>Merchant</th><th>State</th><th>Reason</th><th>Received</th><th>Size</th><th>Entries</th><th>Accepted</th></tr></thead>
<tbody>${page.batches.map(row)}</tbody></table></div>` : html`<p class="empty">No batches.</p>`}${next}</section>`;
}
