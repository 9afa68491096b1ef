// The campaign's one table: a row per scenario, a total, the columns of docs/reliability.md.
import type { Counts } from './check.ts';

export interface Row {
  scenario: string;
  trials: number;
  counts: Counts;
  /** Trials whose own expectation broke (timed out, an upload to a full disk accepted …). */
  errors: number;
  /** Orders parked for the operator: outcome unknown after processor.reconcileTimeoutMs (not a failure). */
  parked: number;
  /** Daemon exits nobody asked for, each followed by a start (as systemd would). */
  restartsBySupervisor: number;
  seconds: number;
  notes: string[];
}

const COLUMNS: Array<[string, (r: Row) => number | string]> = [
  ['scenario', (r) => r.scenario],
  ['trials', (r) => r.trials],
  ['duplicate orders', (r) => r.counts.duplicateOrders],
  ['double charges', (r) => r.counts.doubleCharges],
  ['orders stuck', (r) => r.counts.stuck],
  ['lost webhooks', (r) => r.counts.lostWebhooks],
  ['duplicate deliveries', (r) => r.counts.duplicateDeliveries],
  ['ack/results missing or corrupt', (r) => r.counts.badFiles],
  ['trial errors', (r) => r.errors],
  ['parked for the operator', (r) => r.parked],
  ['daemon self-exits', (r) => r.restartsBySupervisor],
  ['seconds', (r) => r.seconds.toFixed(0)],
];

export function printTable(rows: Row[]): void {
  const total: Row = {
    scenario: 'total', trials: rows.reduce((n, r) => n + r.trials, 0), errors: rows.reduce((n, r) => n + r.errors, 0),
    parked: rows.reduce((n, r) => n + r.parked, 0), restartsBySupervisor: rows.reduce((n, r) => n + r.restartsBySupervisor, 0), seconds: rows.reduce((n, r) => n + r.seconds, 0), notes: [],
    counts: Object.fromEntries(Object.keys(rows[0]?.counts ?? {}).map((k) => [k, rows.reduce((n, r) => n + r.counts[k as keyof Counts], 0)])) as unknown as Counts,
  };
  const cells = [...rows, total].map((r) => COLUMNS.map(([, f]) => String(f(r))));
  const widths = COLUMNS.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  console.log(`\n${line(COLUMNS.map(([h]) => h))}`);
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  console.log('(parked for the operator: orders whose attempt outcome no lookup settled within processor.reconcileTimeoutMs, left for `rescued orders` to resolve; not a failure)');
  console.log('(daemon self-exits: exits the daemon made by itself, e.g. on a lost database, after which the harness started it again as systemd would; not a failure)');
}
