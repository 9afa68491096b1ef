// Folding the grouped rows into the report's figures. "Recovered" (docs/console.md): an
// order that ended APPROVED. Every order rescued holds began as a declined transaction
// (evaluate and batch entries require isDeclined: true), so APPROVED means a decline turned
// into a charge — by the real-time attempt or a completed challenge (CIT) or a retry (MIT).
// The rate is recovered / (recovered + lost), lost being DECLINED or EXPIRED: open orders
// have no outcome yet and cancelled ones were withdrawn by the merchant, so neither counts.
import { resolveOriginalDecline } from '../declines/original.ts';
import { STATUSES } from '../domain/states.ts';
import type { FigureRow } from './sql/order-figures.ts';
import type { BrandRow, CauseRow, Figures, MerchantRow, Money, ReasonRow } from './schema.ts';
import type { CauseRow as CauseSqlRow } from './sql/recovery-causes.ts';
import { RECOVERY_CAUSES } from '../domain/card-updates.ts';

interface Acc {
  orders: number;
  recovered: number;
  lost: number;
  cancelled: number;
  money: Map<string, Money>;
}

const emptyAcc = (): Acc => ({ orders: 0, recovered: 0, lost: 0, cancelled: 0, money: new Map() });

function add(acc: Acc, r: FigureRow): void {
  acc.orders += r.orders;
  acc.recovered += r.recovered;
  acc.lost += r.lost;
  acc.cancelled += r.cancelled;
  const currency = r.currency ?? '???';
  const m = acc.money.get(currency) ?? { currency, recovered: 0, refunded: 0, lost: 0 };
  m.recovered += r.recoveredAmount;
  m.refunded += r.refundedAmount;
  m.lost += r.lostAmount;
  acc.money.set(currency, m);
}

export function rate(recovered: number, lost: number): number | null {
  return recovered + lost === 0 ? null : recovered / (recovered + lost);
}

function figures(acc: Acc): Figures {
  const amounts = [...acc.money.values()].sort((a, b) => b.recovered - a.recovered || a.currency.localeCompare(b.currency));
  return {
    orders: acc.orders,
    open: acc.orders - acc.recovered - acc.lost - acc.cancelled,
    recovered: acc.recovered,
    lost: acc.lost,
    cancelled: acc.cancelled,
    recoveryRate: rate(acc.recovered, acc.lost),
    amounts,
  };
}

/** Accumulates rows under a key; the map keeps the first-seen extra fields of each key. */
function groupBy<E>(rows: FigureRow[], keyOf: (r: FigureRow) => { key: string; extra: E }): Map<string, { extra: E; acc: Acc }> {
  const groups = new Map<string, { extra: E; acc: Acc }>();
  for (const r of rows) {
    const { key, extra } = keyOf(r);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { extra, acc: emptyAcc() }));
    add(g.acc, r);
  }
  return groups;
}

/** Most orders first, then by name: the rows an operator looks at first lead. */
const byOrders = <T extends Figures>(rows: T[], name: (r: T) => string): T[] => rows.sort((a, b) => b.orders - a.orders || name(a).localeCompare(name(b)));

export function ordersByState(rows: FigureRow[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  for (const r of rows) if (r.set === 'state' && r.status) out[r.status] = (out[r.status] ?? 0) + r.orders;
  return out;
}

export function overall(rows: FigureRow[]): Figures {
  const acc = emptyAcc();
  for (const r of rows) if (r.set === 'overall') add(acc, r);
  return figures(acc);
}

/**
 * The canonical reason of each original decline, by the one resolution the engine and the
 * order page use (src/declines/original.ts): code tables, card brand, and the request's text
 * where it can decide (those rows carry it). The statement groups by code, so this runs once
 * per distinct (source, code, brand[, texts]), not per order. A reason whose class differs by
 * brand (a Visa category 1 code is hard) is one row per class.
 */
export function byReason(rows: FigureRow[]): ReasonRow[] {
  const cache = new Map<string, { reason: string; class: string }>();
  const groups = groupBy(rows.filter((r) => r.set === 'code'), (r) => {
    const k = [r.declineSource, r.declineCode, r.declineAdvice, r.cardBrand, r.responseDescription, r.responseSubStatus].join('\u0000');
    let c = cache.get(k);
    if (!c) {
      const cl = resolveOriginalDecline({ ...r, merchantAdviceCode: r.declineAdvice });
      cache.set(k, (c = { reason: cl.reason, class: cl.class }));
    }
    return { key: `${c.reason}/${c.class}`, extra: c };
  });
  return byOrders([...groups.values()].map((g) => ({ ...g.extra, ...figures(g.acc) })), (r) => `${r.reason}/${r.class}`);
}

export function byBrand(rows: FigureRow[]): BrandRow[] {
  const groups = groupBy(rows.filter((r) => r.set === 'brand'), (r) => {
    const brand = r.cardBrand?.toLowerCase() || 'unknown';
    return { key: brand, extra: { brand } };
  });
  return byOrders([...groups.values()].map((g) => ({ ...g.extra, ...figures(g.acc) })), (r) => r.brand);
}

export function byMerchant(rows: FigureRow[]): MerchantRow[] {
  const groups = groupBy(rows.filter((r) => r.set === 'merchant'), (r) => ({ key: r.merchantId ?? '', extra: { mid: r.mid ?? '', name: r.merchantName ?? '' } }));
  return byOrders([...groups.values()].map((g) => ({ ...g.extra, ...figures(g.acc) })), (r) => r.name);
}

/** Recovered orders and amounts per cause, every cause listed (a zero says the path exists and did nothing). */
export function byCause(rows: CauseSqlRow[]): CauseRow[] {
  return RECOVERY_CAUSES.map((cause) => {
    const mine = rows.filter((r) => r.cause === cause);
    const amounts = mine.map((r) => ({ currency: r.currency, recovered: r.amount, refunded: r.refunded })).sort((a, b) => b.recovered - a.recovered || a.currency.localeCompare(b.currency));
    return { cause, recovered: mine.reduce((s, r) => s + r.orders, 0), amounts };
  });
}
