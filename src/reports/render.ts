// The report as text and as CSV, for `rescued report`. Both are views of the one object
// recoveryReport() builds (the console and the API hand out the same object).
import type { Figures, LearnedTiming, RecoveryReport } from './schema.ts';
import { majorUnits, plainMajorUnits } from './money.ts';

const n = (v: number) => v.toLocaleString('en-US');
const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);

function money(f: Figures, key: 'recovered' | 'refunded'): string {
  const list = f.amounts.filter((a) => a[key] !== 0);
  return list.length ? list.map((a) => `${majorUnits(a[key], a.currency)} ${a.currency}`).join(', ') : '0';
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)];
}

type Group = Figures & { label: string };

function breakdown(title: string, groups: Group[]): string[] {
  if (!groups.length) return [`${title}: none`];
  const rows = groups.map((g) => [g.label, n(g.orders), n(g.recovered), n(g.lost), n(g.open), pct(g.recoveryRate), money(g, 'recovered')]);
  return [`${title}:`, ...table(['', 'orders', 'recovered', 'lost', 'open', 'rate', 'recovered amount'], rows)];
}

export function reportText(r: RecoveryReport): string {
  const o = r.overall;
  const d = r.attemptsPerDay;
  const busyDays = d.days.filter((x) => x.done || x.planned);
  const sum = (k: 'done' | 'approved' | 'planned') => d.days.reduce((s, x) => s + x[k], 0);
  const q = r.queue;
  const w = r.webhooks;
  return [
    `recovery report: ${r.mid ? `merchant ${r.mid}` : 'all merchants'}, orders ${r.since ? `created since ${r.since}` : 'of all time'} (at ${r.generatedAt})`,
    `orders by state: ${Object.entries(r.ordersByState).map(([s, c]) => `${s} ${n(c)}`).join(' · ')}`,
    `recovered: ${n(o.recovered)} of ${n(o.recovered + o.lost)} decided (${pct(o.recoveryRate)}); ${n(o.open)} open, ${n(o.cancelled)} cancelled`,
    `recovered amount: ${money(o, 'recovered')} (refunded since: ${money(o, 'refunded')})`,
    '',
    ...breakdown('by decline reason', r.byReason.map((g) => ({ ...g, label: `${g.reason} (${g.class})` }))),
    ...breakdown('by card brand', r.byBrand.map((g) => ({ ...g, label: g.brand }))),
    ...(r.mid ? [] : breakdown('by merchant', r.byMerchant.map((g) => ({ ...g, label: `${g.name} ${g.mid}` })))),
    ...causeLines(r.byRecoveryCause ?? []),
    '',
    `attempts per day (UTC ${d.from} to ${d.to}): done ${n(sum('done'))} (approved ${n(sum('approved'))}), planned ${n(sum('planned'))}${d.plannedLater ? ` and ${n(d.plannedLater)} after ${d.to}` : ''}`,
    ...(busyDays.length ? table(['day', 'done', 'approved', 'declined', 'planned'], busyDays.map((x) => [x.day, n(x.done), n(x.approved), n(x.declined), n(x.planned)])) : []),
    `queue: ${n(q.depth)} MIT orders (to plan ${n(q.toPlan)}, due now ${n(q.dueNow)}, scheduled ${n(q.scheduled)}, parked ${n(q.parked)}, awaiting an updated card ${n(q.awaitingCard)}, in flight ${n(q.inFlight)}); ${n(q.awaitingChallenge)} awaiting a challenge${q.oldestDueAt ? `; oldest due since ${q.oldestDueAt}` : ''}`,
    `webhooks: ${n(w.pending)} pending (${n(w.dueNow)} due now), ${n(w.delivering)} delivering, ${n(w.dead)} dead letters, ${n(w.disabledEndpoints)} disabled endpoints${w.oldestPendingAt ? `; oldest pending since ${w.oldestPendingAt}` : ''}`,
    r.batchesInProgress.length ? 'batches in progress:' : 'batches in progress: none',
    ...r.batchesInProgress.map((b) => `  ${b.fileName}  ${b.phase} ${Math.round(b.progress * 100)}%  accepted ${n(b.accepted)}, rejected ${n(b.rejected)}, final ${n(b.final)} (approved ${n(b.approved)}, expired ${n(b.expired)})  ${b.mid}  ${b.batchId}`),
    '',
    ...learnedLines(r.learnedTiming),
  ].join('\n');
}

/** What recovered the orders: each cause with its orders and recovered amount. */
function causeLines(causes: RecoveryReport['byRecoveryCause']): string[] {
  const amount = (c: RecoveryReport['byRecoveryCause'][number]) => (c.amounts.length ? c.amounts.map((a) => `${majorUnits(a.recovered, a.currency)} ${a.currency}`).join(', ') : '0');
  return ['recovered by:', ...table(['', 'orders', 'recovered amount'], causes.map((c) => [c.cause, n(c.recovered), amount(c)]))];
}

const two = (h: number) => String(h).padStart(2, '0');
const hours = (list: LearnedTiming['families'][number]['best']) =>
  list.length ? list.map((h) => `${two(h.hour)}–${two((h.hour + 1) % 24)} ${pct(h.approvals / h.attempts)} of ${n(h.attempts)}`).join(', ') : '-';

/** The learned table: per original decline, its attempts and the local hours that approve best and worst. */
function learnedLines(l: LearnedTiming): string[] {
  if (l.attempts === 0) return ['learned timing: nothing learned yet (engine.learning off or frozen, or no retry recorded)'];
  const rows = l.families.map((f) => [f.family, n(f.attempts), pct(f.approvals / f.attempts), hours(f.best), hours(f.worst)]);
  return [
    `learned timing: ${n(l.attempts)} retries in ${n(l.cells)} cells, ${pct(l.approvals / l.attempts)} approved; local hours with at least ${n(l.minAttempts)} attempts ranked:`,
    ...table(['original decline', 'attempts', 'approved', 'best local hours', 'worst local hours'], rows),
  ];
}

/** RFC 4180 quoting; a text cell that a spreadsheet would run as a formula is prefixed with '. */
function cell(v: string | number | null): string {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The recovery breakdown, one row per group (overall, each reason, brand and merchant), with
 * a recovered, refunded and lost column per currency in major units. The other parts (days,
 * queue, webhooks, batches) are in the text and JSON forms.
 */
export function reportCsv(r: RecoveryReport): string {
  const currencies = [...new Set([r.overall, ...r.byReason, ...r.byBrand, ...r.byMerchant].flatMap((f) => f.amounts.map((a) => a.currency)))].sort();
  const head = ['section', 'key', 'name', 'class', 'orders', 'open', 'recovered', 'lost', 'cancelled', 'recovery_rate', ...currencies.flatMap((c) => [`recovered_${c}`, `refunded_${c}`, `lost_${c}`])];
  const row = (section: string, key: string, name: string, cls: string, f: Figures) => {
    const amounts = currencies.flatMap((c) => {
      const a = f.amounts.find((m) => m.currency === c) ?? { recovered: 0, refunded: 0, lost: 0 };
      return [plainMajorUnits(a.recovered, c), plainMajorUnits(a.refunded, c), plainMajorUnits(a.lost, c)];
    });
    const rate = f.recoveryRate === null ? null : Number(f.recoveryRate.toFixed(4));
    return [section, key, name, cls, f.orders, f.open, f.recovered, f.lost, f.cancelled, rate, ...amounts].map(cell).join(',');
  };
  return [
    head.join(','),
    row('overall', '', '', '', r.overall),
    ...r.byReason.map((g) => row('reason', g.reason, '', g.class, g)),
    ...r.byBrand.map((g) => row('brand', g.brand, '', '', g)),
    ...r.byMerchant.map((g) => row('merchant', g.mid, g.name, '', g)),
    ...(r.byRecoveryCause ?? []).map((c) => {
      const amounts = currencies.flatMap((cur) => {
        const a = c.amounts.find((m) => m.currency === cur);
        return [plainMajorUnits(a?.recovered ?? 0, cur), plainMajorUnits(a?.refunded ?? 0, cur), ''];
      });
      return ['recovered_by', c.cause, '', '', c.recovered, '', c.recovered, '', '', '', ...amounts].map(cell).join(',');
    }),
  ].join('\r\n');
}
