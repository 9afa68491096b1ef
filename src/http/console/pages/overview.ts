// The overview page: the recovery report, rendered. Figures are text in the page (readable
// without JavaScript); the charts' numbers travel as data attributes that console.js hands
// to uPlot, and the live parts (queue, webhooks, batches) are refreshed by polling
// /console/api/live.json. The figures link to the orders behind them (states, decline
// reasons, batches: the orders page, in the same scope) and each merchant to its overview.
import type { Figures, RecoveryReport } from '../../../reports/schema.ts';
import { majorUnits } from '../../../reports/money.ts';
import { count, html, percent, type Html } from '../html.ts';
import { batchRows, queueRows, webhookRows } from './live.ts';
import { batchesHref, ordersHref, overviewHref } from './links.ts';

export interface OverviewQuery {
  since: string;
  mid: string;
  /** Milliseconds between two polls of the live part. */
  pollMs: number;
}

const SINCE_CHOICES: [string, string][] = [['', 'all time'], ['24h', 'last 24 hours'], ['7d', 'last 7 days'], ['30d', 'last 30 days'], ['90d', 'last 90 days']];

/**
 * The choices, with the one in the address when it is none of them (`?since=48h`, a date): the
 * selector shows the scope the figures are for, and "Show" keeps it.
 */
export function sinceChoices(since: string): [string, string][] {
  return SINCE_CHOICES.some(([v]) => v === since) ? SINCE_CHOICES : [...SINCE_CHOICES, [since, `since ${since}`]];
}

function scopeForm(report: RecoveryReport, q: OverviewQuery): Html {
  return html`<form class="scope" method="get" action="/console">
<label>Orders created <select name="since">${sinceChoices(q.since).map(([v, label]) => html`<option value="${v}"${v === q.since ? html` selected` : ''}>${label}</option>`)}</select></label>
<label>Merchant <select name="merchant"><option value="">all merchants</option>${report.byMerchant.map((m) => html`<option value="${m.mid}"${m.mid === q.mid ? html` selected` : ''}>${m.name}</option>`)}${q.mid && !report.byMerchant.some((m) => m.mid === q.mid) ? html`<option value="${q.mid}" selected>${q.mid}</option>` : ''}</select></label>
<button>Show</button>
</form>`;
}

function amounts(f: Figures, key: 'recovered' | 'refunded' | 'lost'): Html {
  const list = f.amounts.filter((a) => a[key] !== 0);
  if (!list.length) return html`0`;
  return html`${list.map((a, i) => html`${i ? html`<br>` : ''}<span data-amount="${key}-${a.currency}">${majorUnits(a[key], a.currency)}</span> ${a.currency}`)}`;
}

function states(report: RecoveryReport, q: OverviewQuery): Html {
  const entries = Object.entries(report.ordersByState);
  return html`<section id="states"><h2>Orders by state</h2>
<table class="figures"><tbody>${entries.map(([s, n]) => html`<tr><th><a href="${ordersHref({ state: s, merchant: q.mid, since: q.since })}" data-link="state-${s}">${s}</a></th><td data-figure="state-${s}">${count(n)}</td></tr>`)}</tbody></table></section>`;
}

function headline(report: RecoveryReport): Html {
  const o = report.overall;
  return html`<section id="recovery"><h2>Recovery</h2>
<dl class="headline">
<div><dt>Recovery rate</dt><dd data-figure="rate">${percent(o.recoveryRate)}</dd></div>
<div><dt>Recovered orders</dt><dd data-figure="recovered">${count(o.recovered)}</dd></div>
<div><dt>Recovered amount</dt><dd>${amounts(o, 'recovered')}</dd></div>
<div><dt>Refunded since</dt><dd>${amounts(o, 'refunded')}</dd></div>
<div><dt>Lost orders</dt><dd data-figure="lost">${count(o.lost)}</dd></div>
<div><dt>Open orders</dt><dd data-figure="open">${count(o.open)}</dd></div>
<div><dt>Cancelled</dt><dd data-figure="cancelled">${count(o.cancelled)}</dd></div>
</dl>
<p class="note">Recovered: ended APPROVED (every order began as a decline). Rate: recovered ÷ (recovered + lost); lost is DECLINED or EXPIRED; open and cancelled orders are left out.</p>
</section>`;
}

function daysChart(report: RecoveryReport): Html {
  const d = report.attemptsPerDay;
  return html`<section id="days"><h2>Attempts per day <small>(UTC; planned: next attempts of PENDING orders${d.plannedLater ? `, ${count(d.plannedLater)} more after ${d.to}` : ''})</small></h2>
<div class="chart" id="chart-days" data-chart="days"
 data-labels="${JSON.stringify(d.days.map((x) => x.day))}"
 data-done="${JSON.stringify(d.days.map((x) => x.done))}"
 data-approved="${JSON.stringify(d.days.map((x) => x.approved))}"
 data-planned="${JSON.stringify(d.days.map((x) => x.planned))}"></div>
</section>`;
}

type Row = Figures & { label: string; key: string; href?: string };

const labelOf = (r: Row): Html => (r.href ? html`<a href="${r.href}" data-link="row">${r.label}</a>` : html`${r.label}`);

function breakdown(id: string, title: string, rows: Row[], extraHead = '', extra: (r: Row) => Html | string = () => ''): Html {
  return html`<section id="${id}"><h2>${title}</h2>
<div class="chart" id="chart-${id}" data-chart="rate" data-labels="${JSON.stringify(rows.map((r) => r.label))}" data-rates="${JSON.stringify(rows.map((r) => (r.recoveryRate === null ? null : Math.round(r.recoveryRate * 1000) / 10)))}"></div>
<table class="grid"><thead><tr><th></th>${extraHead ? html`<th>${extraHead}</th>` : ''}<th>Orders</th><th>Recovered</th><th>Lost</th><th>Open</th><th>Rate</th><th>Recovered amount</th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-row="${r.key}"><th>${labelOf(r)}</th>${extraHead ? html`<td>${extra(r)}</td>` : ''}<td>${count(r.orders)}</td><td data-cell="recovered">${count(r.recovered)}</td><td>${count(r.lost)}</td><td>${count(r.open)}</td><td data-cell="rate">${percent(r.recoveryRate)}</td><td>${amounts(r, 'recovered')}</td></tr>`)}</tbody></table>
</section>`;
}

function live(report: RecoveryReport, mid: string, pollMs: number): Html {
  return html`<section id="live" data-live="/console/api/live.json${mid ? `?merchant=${encodeURIComponent(mid)}` : ''}" data-interval="${pollMs}">
<div class="cols">
<div><h2>Queue</h2><table class="figures"><tbody id="queue">${queueRows(report.queue)}</tbody></table></div>
<div><h2>Webhooks</h2><table class="figures"><tbody id="webhooks">${webhookRows(report.webhooks)}</tbody></table></div>
</div>
<h2>Batches in progress <small id="live-at" data-at="${report.generatedAt}">as of ${report.generatedAt}</small> <small><a href="${batchesHref(mid)}" data-link="batches">every batch</a></small></h2>
<table class="grid"><thead><tr><th>File</th><th>Phase</th><th>Merchant</th><th>Received</th><th>Accepted</th><th>Rejected</th><th>Final</th><th>Approved</th><th>Expired</th><th>Progress</th></tr></thead>
<tbody id="batches">${batchRows(report.batchesInProgress)}</tbody></table>
</section>`;
}

export function overviewBody(report: RecoveryReport, q: OverviewQuery): Html {
  return html`<h1>Overview <small>${report.mid ? `merchant ${report.mid}` : 'all merchants'}${report.since ? `, orders since ${report.since}` : ''}</small></h1>
${scopeForm(report, q)}
<div class="cols">${states(report, q)}${headline(report)}</div>
${daysChart(report)}
${breakdown('reasons', 'Recovery by decline reason', report.byReason.map((r) => ({ ...r, key: `${r.reason}/${r.class}`, label: r.reason, href: ordersHref({ reason: r.reason, class: r.class, merchant: q.mid, since: q.since }) })), 'Class', (r) => (r as Row & { class: string }).class)}
${breakdown('brands', 'Recovery by card brand', report.byBrand.map((r) => ({ ...r, key: r.brand, label: r.brand })))}
${breakdown('merchants', 'Recovery by merchant', report.byMerchant.map((r) => ({ ...r, key: r.mid, label: r.name, href: overviewHref(r.mid, q.since) })), 'mid', (r) => r.key)}
${live(report, q.mid, q.pollMs)}`;
}
