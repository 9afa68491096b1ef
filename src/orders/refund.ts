// Refund (DESIGN.md §2): full or partial, only of an APPROVED order, never more than the
// captured amount in total, idempotent per order and amount + key. The amount is reserved
// under the order's lock before the processor is called (the processor call must not hold a
// transaction: PGlite has one connection, and the processor writes its own records).
import { createHash, randomUUID } from 'node:crypto';
import { orderAttempts } from '../db/queries/attempts.ts';
import { GatewayError } from '../processors/connector.ts';
import { RescuedError, type FieldError } from '../errors.ts';
import { lockOrder, type OrderRow } from '../db/queries/find-order.ts';
import { dropRefund, failRefund, findRefund, reserveRefund, settleRefund, type RefundRow } from '../db/queries/refunds.ts';
import { enqueueOrderEvent } from '../webhooks/outbox.ts';
import { callProcessor, processorOf, type OrderDeps } from './deps.ts';
import { scrubText } from '../scrub.ts';

export interface RefundInput {
  /** Minor units; undefined = whatever is left to refund. */
  amount: number | undefined;
  idempotencyKey: string | undefined;
  message: string | undefined;
}

type Obj = Record<string, unknown>;
const bad = (field: string, code: 'ERR_MODEL_TYPE' | 'ERR_MODEL_RANGE' | 'ERR_MODEL_FORMAT', message: string): FieldError => ({ field, code, message });

/** `amountToRefund` in major units (number or numeric string, two decimals at most) or `amount` in cents. */
export function readRefundBody(body: unknown, headerKey: string | undefined): RefundInput {
  const b: Obj = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Obj) : {};
  const errors: FieldError[] = [];
  let amount: number | undefined;
  const major = b.amountToRefund ?? b.AmountToRefund;
  if (major !== undefined && major !== null) {
    const text = typeof major === 'number' ? String(major) : typeof major === 'string' ? major.trim() : '';
    if (!/^\d+(\.\d{1,2})?$/.test(text)) errors.push(bad('amountToRefund', 'ERR_MODEL_FORMAT', 'must be a positive amount in major units with at most two decimals'));
    else amount = Math.round(Number(text) * 100);
  } else if (b.amount !== undefined && b.amount !== null) {
    if (!Number.isInteger(b.amount)) errors.push(bad('amount', 'ERR_MODEL_TYPE', 'must be an integer amount in cents'));
    else amount = b.amount as number;
  }
  if (amount !== undefined && amount <= 0) errors.push(bad(major !== undefined ? 'amountToRefund' : 'amount', 'ERR_MODEL_RANGE', 'must be greater than 0'));
  const key = b.idempotencyKey ?? headerKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 200)) errors.push(bad('idempotencyKey', 'ERR_MODEL_FORMAT', 'must be a string of 1 to 200 characters'));
  // Stored scrubbed (a merchant may paste a card number and its CVV into a note), and cut
  // after scrubbing so that a cut never leaves a partial number the scrubber cannot see.
  const message = typeof b.refundMessage === 'string' ? scrubText(b.refundMessage).slice(0, 500) : undefined;
  if (errors.length) throw new RescuedError('ERR_MODEL_INVALID', undefined, errors);
  return { amount, idempotencyKey: key as string | undefined, message };
}

export interface RefundAnswer {
  refund: RefundRow;
  order: OrderRow;
  replayed: boolean;
}

export async function refundOrder(deps: OrderDeps, merchantId: string, orderSessionKey: string, input: RefundInput): Promise<RefundAnswer> {
  const reserved = await deps.db.transaction(async (tx) => {
    const o = await lockOrder(tx, merchantId, orderSessionKey);
    if (!o) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
    if (o.status !== 'APPROVED' || !o.confirmationId) throw new RescuedError('ERR_API_NOT_REFUNDABLE', `The order is ${o.status}; only an APPROVED order can be refunded.`);
    const amount = input.amount ?? o.amount - o.refundedAmount;
    const key = `${amount}:${input.idempotencyKey ?? ''}`;
    const existing = await findRefund(tx, o.id, key);
    // Reserved but never settled: its call's outcome was unknown; the same key may send it again.
    if (existing?.status === 'SUCCESS' && existing.processorRef === null) return { order: o, refund: existing, replayed: false, resend: true };
    if (existing) return { order: o, refund: existing, replayed: true };
    if (amount <= 0 || o.refundedAmount + amount > o.amount) {
      throw new RescuedError('ERR_API_REFUND_EXCEEDS_CAPTURED', `Captured ${o.amount}, already refunded ${o.refundedAmount} (minor units); ${amount} is more than is left.`);
    }
    const refund = { id: randomUUID(), orderSessionKey: o.id, merchantId, amount, idempotencyKey: key, status: 'SUCCESS' as const, message: input.message ?? null, processorRef: null, createdAt: deps.clock.now() };
    await reserveRefund(tx, refund);
    return { order: { ...o, refundedAmount: o.refundedAmount + amount }, refund, replayed: false, resend: false };
  });
  if (reserved.replayed) return reserved;
  return settle(deps, reserved.order, reserved.refund, reserved.resend === true);
}

/**
 * The processor's key of a refund: the order and the client's amount + key, so a client that
 * retries after a timeout sends the same key and an idempotent gateway refunds once.
 */
export const refundKey = (orderSessionKey: string, key: string) => `${orderSessionKey}:refund:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** The account that charged the order (refunds go back through it) and whether it dedupes keys. */
async function chargingAccount(deps: OrderDeps, o: OrderRow): Promise<{ accountId: string | null; idempotent: boolean }> {
  const approved = (await orderAttempts(deps.db, o.id)).find((a) => a.status === 'approved' && a.processorRef === o.confirmationId);
  const accountId = approved?.accountId ?? null;
  const by = accountId ? await processorOf(deps).reconcileBy?.(accountId, o.merchantId) : 'replay';
  return { accountId, idempotent: by !== 'lookup' };
}

async function settle(deps: OrderDeps, o: OrderRow, r: RefundRow, resend: boolean): Promise<RefundAnswer> {
  const account = await callProcessor(() => chargingAccount(deps, o));
  if (resend && !account.idempotent) {
    // A gateway without idempotency keys may have refunded already: sending again could
    // refund twice. The amount stays reserved until the operator has checked at the gateway.
    throw new RescuedError('ERR_API_PROCESSOR_UNAVAILABLE', 'An earlier refund with this key may have reached the gateway, which cannot dedupe it; the amount stays reserved until the operator has checked the gateway.');
  }
  let res;
  try {
    res = await callProcessor(() => processorOf(deps).refund({
      idempotencyKey: refundKey(o.id, r.idempotencyKey), reference: o.id, processorRef: o.confirmationId!, amount: r.amount, currency: o.currency,
      accountId: account.accountId, ...(o.cardLast4 ? { last4: o.cardLast4 } : {}),
    }));
  } catch (err) {
    const cause = (err as Error).cause;
    // Not sent, or refused without an answer: nothing was refunded, the reservation goes. An
    // unknown outcome keeps it, so no other refund can pass the captured amount meanwhile.
    if (!(cause instanceof GatewayError && cause.kind === 'unknown')) await deps.db.transaction((tx) => dropRefund(tx, r));
    else deps.log.error({ orderSessionKey: o.id, refundId: r.id }, 'refund outcome unknown: the amount stays reserved; the same request with the same key sends it again');
    throw err;
  }
  if (!res.approved) {
    await deps.db.transaction((tx) => failRefund(tx, r, `declined ${res.responseCode}`));
    throw new RescuedError('ERR_API_REFUND_DECLINED', `The processor refused the refund (${res.responseCode}).`);
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await settleRefund(tx, r.id, res.processorRef);
    await enqueueOrderEvent(tx, {
      type: 'order.refunded', merchantId: o.merchantId, orderSessionKey: o.id, orderId: o.orderId, status: o.status, reason: o.statusReason,
      amount: o.amount, currency: o.currency, attempts: o.attemptCount, confirmationId: o.confirmationId, refundedAmount: o.refundedAmount,
      isTestMode: deps.mode === 'sandbox', at: now,
    });
  });
  return { order: o, refund: { ...r, processorRef: res.processorRef }, replayed: false };
}
