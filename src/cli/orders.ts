// `rescued orders show <orderSessionKey>`: an order as the engine sees it — status, the past
// attempts with their results and why each was made then, and the planned next attempt with
// its reason. Cards appear as brand and last four digits only.
import type { Command } from 'commander';
import { listAttempts, type AttemptWithAccount } from '../db/queries/find-order.ts';
import { gatewayView } from '../orders/view.ts';
import { findOrderByKey } from '../db/queries/order-by-key.ts';
import { RescuedError } from '../errors.ts';
import { withCore } from './context.ts';

type Found = NonNullable<Awaited<ReturnType<typeof findOrderByKey>>>;

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** The view printed: what an operator needs to understand the order, nothing that identifies the card. */
export function orderView(found: Found, attempts: AttemptWithAccount[]) {
  const o = found.order;
  const open = o.status === 'SUBMITTED' || o.status === 'PENDING' || o.status === 'PROCESSING';
  return {
    orderSessionKey: o.id,
    orderId: o.orderId,
    mid: found.mid,
    kind: o.kind,
    status: o.status,
    reason: o.statusReason,
    amount: o.amount / 100,
    currency: o.currency,
    card: `${o.cardBrand ?? 'card'} ending ${o.cardLast4 ?? '????'}`,
    originalDecline: { code: o.declineCode, source: o.declineSource },
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
    `  amount:   ${v.amount.toFixed(2)} ${v.currency}, ${v.card}`,
    `  declined: ${v.originalDecline.code} (${v.originalDecline.source}) · created ${v.createdAt} · expires ${v.expiresAt ?? '-'}`,
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

export function orderCommands(program: Command): void {
  const orders = program.command('orders').description('inspect orders');
  orders
    .command('show <orderSessionKey>')
    .description('an order with its past attempts and the planned next one, and the reason for each (no card number)')
    .option('--json', 'print JSON')
    .action((key: string, opts: { json?: boolean }) =>
      withCore(program, async (core, print) => {
        const found = await findOrderByKey(core.database.db, key);
        if (!found) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No order with orderSessionKey ${key}.`);
        const view = orderView(found, await listAttempts(core.database.db, found.order.id));
        print(opts.json ? view : orderText(view), opts.json);
      }),
    );
}
