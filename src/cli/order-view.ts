// `rescued orders show`: an order as the engine sees it, as text or JSON (the listing's members
// in the same shape: minor units, the card as {brand, last4}), with its original decline
// resolved the one way (src/declines/original.ts). Loaded by `orders show` alone, so that
// `orders list` does not load the decline tables.
import type { AttemptWithAccount } from '../db/queries/find-order.ts';
import type { findOrderByKey } from '../db/queries/order-by-key.ts';
import { gatewayView } from '../orders/view.ts';
import { requestTexts, resolveOriginalDecline } from '../declines/original.ts';
import { majorUnits } from '../reports/money.ts';

type Found = NonNullable<Awaited<ReturnType<typeof findOrderByKey>>>;

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** The view printed: what an operator needs to understand the order, nothing that identifies the card. */
export function orderView(found: Found, attempts: AttemptWithAccount[]) {
  const o = found.order;
  const decline = resolveOriginalDecline({ declineSource: o.declineSource, declineCode: o.declineCode, cardBrand: o.cardBrand, merchantAdviceCode: o.declineAdvice, ...requestTexts(o.request), at: o.createdAt });
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

