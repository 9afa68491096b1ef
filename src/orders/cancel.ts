// Cancel (DESIGN.md §2): an MIT order that is not final (SUBMITTED, PENDING, PROCESSING)
// becomes CANCELLED under the order's row lock. The engine claims and finishes attempts
// under the same lock and re-reads the status, so no attempt starts after this commits, and
// an approval that lands for a CANCELLED order is voided by the engine.
import { RescuedError } from '../errors.ts';
import { assertTransition, isStatus } from '../domain/index.ts';
import { lockOrder, type OrderRow } from '../db/queries/find-order.ts';
import { updateOrder } from '../db/queries/update-order.ts';
import { enqueueOrderEvent } from '../webhooks/outbox.ts';
import type { OrderDeps } from './deps.ts';

export async function cancelOrder(deps: OrderDeps, merchantId: string, orderSessionKey: string): Promise<OrderRow> {
  return deps.db.transaction(async (tx) => {
    const o = await lockOrder(tx, merchantId, orderSessionKey);
    if (!o) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
    // Cancelling twice answers the same: the merchant may retry a cancel whose answer it lost.
    if (o.status === 'CANCELLED') return o;
    assertTransition(isStatus(o.status) ? o.status : null, 'CANCELLED');
    const now = deps.clock.now();
    const change = { status: 'CANCELLED', statusReason: 'cancelled_by_merchant', nextAttemptAt: null, planReason: null, updatedAt: now, finishedAt: now };
    await updateOrder(tx, o.id, change);
    await enqueueOrderEvent(tx, {
      type: 'order.cancelled', merchantId, orderSessionKey: o.id, orderId: o.orderId, status: 'CANCELLED', reason: 'cancelled_by_merchant',
      amount: o.amount, currency: o.currency, attempts: o.attemptCount, confirmationId: null, isTestMode: deps.mode === 'sandbox', at: now,
    });
    return { ...o, ...change };
  });
}
