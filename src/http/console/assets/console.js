/* global document, window, fetch, uPlot, setInterval */
// The console's only script (served from /console/assets; the CSP allows no other): draws the
// overview's charts with uPlot from the numbers the server put in data attributes, and
// refreshes the live tables (queue, webhooks, batches) by polling /console/api/live.json.
// After drawing, each chart records the series it actually plotted in data-plotted, so the
// browser tests can check the picture against the seeded figures.
'use strict';

const COLORS = { done: '#3b6ea5', approved: '#2e8b57', planned: '#d08c2f', rate: '#3b6ea5' };

function numbers(el, name) {
  return JSON.parse(el.getAttribute(`data-${name}`) || '[]');
}

function width(el) {
  return Math.max(320, Math.min(1100, el.clientWidth || 800));
}

function finish(el, chart) {
  el.setAttribute('data-plotted', JSON.stringify(chart.data.slice(1)));
  el.setAttribute('data-rendered', 'true');
}

function daysChart(el) {
  const labels = numbers(el, 'labels');
  const xs = labels.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const bars = (align) => uPlot.paths.bars({ size: [0.4, 24], align });
  const opts = {
    width: width(el),
    height: 260,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    series: [
      { label: 'day (UTC)' },
      { label: 'done', stroke: COLORS.done, fill: COLORS.done, paths: bars(-1), points: { show: false } },
      { label: 'approved', stroke: COLORS.approved, width: 2 },
      { label: 'planned', stroke: COLORS.planned, fill: COLORS.planned, paths: bars(1), points: { show: false } },
    ],
  };
  finish(el, new uPlot(opts, [xs, numbers(el, 'done'), numbers(el, 'approved'), numbers(el, 'planned')], el));
}

function rateChart(el) {
  const labels = numbers(el, 'labels');
  if (!labels.length) {
    el.textContent = 'No orders in this scope.';
    el.setAttribute('data-rendered', 'empty');
    return;
  }
  const xs = labels.map((_l, i) => i);
  const opts = {
    width: width(el),
    height: 220,
    scales: { x: { time: false, range: () => [-0.5, labels.length - 0.5] }, y: { range: [0, 100] } },
    axes: [
      { splits: () => xs, values: (_u, splits) => splits.map((i) => labels[i] ?? ''), rotate: 0 },
      { values: (_u, splits) => splits.map((v) => `${v}%`) },
    ],
    series: [
      { label: 'group', value: (_u, i) => (i === null ? '' : labels[i] ?? '') },
      { label: 'recovery rate %', stroke: COLORS.rate, fill: COLORS.rate, paths: uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } },
    ],
  };
  finish(el, new uPlot(opts, [xs, numbers(el, 'rates')], el));
}

function drawCharts() {
  for (const el of document.querySelectorAll('[data-chart]')) {
    if (el.getAttribute('data-chart') === 'days') daysChart(el);
    else rateChart(el);
  }
}

async function refreshLive(section) {
  if (document.hidden) return;
  const res = await fetch(section.getAttribute('data-live'), { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (res.status === 401) {
    window.location.assign('/console/login');
    return;
  }
  if (!res.ok) return;
  const live = await res.json();
  // The fragments are rendered and escaped by the server, as the page itself is. One left out
  // (not known while a file is ingested on the embedded database) keeps what the page shows.
  for (const id of ['queue', 'webhooks', 'batches']) {
    if (typeof live.fragments[id] === 'string') document.getElementById(id).innerHTML = live.fragments[id];
  }
  const at = document.getElementById('live-at');
  at.setAttribute('data-at', live.generatedAt);
  const held = live.heldAsOf === undefined ? '' : ` (a file is being ingested: queue and webhooks ${live.heldAsOf ? `as of ${live.heldAsOf}` : 'when it is committed'})`;
  at.textContent = `as of ${live.generatedAt}${held}`;
}

function startLive() {
  const section = document.querySelector('[data-live]');
  if (!section) return;
  const interval = Number(section.getAttribute('data-interval')) || 5000;
  setInterval(() => {
    refreshLive(section).catch(() => {});
  }, interval);
}

if (document.body.getAttribute('data-page') === 'overview') {
  drawCharts();
  startLive();
}
