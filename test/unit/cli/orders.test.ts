// `rescued orders show`: the order, each attempt with why it was made and what came back, and
// the planned next attempt with its reason — and nothing that identifies the card.
import { describe, expect, it } from 'vitest';
import { orderText, orderView } from '../../../src/cli/order-view.ts';

const T = (s: string) => new Date(`2026-03-${s}Z`);
const order = {
  id: '6f0c5a1e-0000-4000-8000-000000000001', merchantId: 'm', batchId: null, sequenceNumber: null, orderId: 'ORD-1', idempotencyKey: 'k', kind: 'MIT' as const,
  status: 'PENDING', statusReason: null, amount: 1999, currency: 'USD', cardToken: 'tok_secret_token', cardBrand: 'VISA', cardBin: '400000', cardLast4: '9995',
  expiresAt: T('30T00:00:00'), declineCode: '51', declineSource: 'NA', declinedAt: null, declineAdvice: null, priorAttempts: null, request: { paymentMethod: { cardNumber: 'tok_secret_token' } },
  nextAttemptAt: T('13T06:17:00'), planReason: 'payday_morning', attemptCount: 1, leaseOwner: null, leaseExpiresAt: null, confirmationId: null,
  refundedAmount: 0, createdAt: T('02T10:00:00'), updatedAt: T('06T06:20:00'), finishedAt: null,
  credential: null, cardUpdates: null, awaitingCard: null, recoveredBy: null, endedCards: null,
};
const attempt = {
  id: 'a', orderSessionKey: order.id, merchantId: 'm', cardToken: 'tok_secret_token', attemptNo: 1, idempotencyKey: `${order.id}:1`, status: 'declined' as const,
  amount: 1999, currency: 'USD', responseCode: '51', adviceCode: null, declineClass: 'soft-funds', reason: 'insufficient_funds', processorRef: 'sbx_1',
  latencyMs: 12, planReason: 'payday_morning', startedAt: T('06T06:17:00'), finishedAt: T('06T06:17:01'),
  accountId: null, route: null, rawCode: null, rawMessage: null, networkTransactionId: null, unknownSince: null,
  accountLabel: null, accountType: null,
};

describe('orders show', () => {
  it('prints past attempts and the planned next one, each with its reason, and no token', () => {
    const view = orderView({ order, mid: 'mid-1' }, [attempt]);
    expect(view.attempts).toEqual([expect.objectContaining({ attemptNo: 1, why: 'payday_morning', responseCode: '51', reason: 'insufficient_funds', class: 'soft-funds' })]);
    expect(view.next).toEqual({ at: '2026-03-13T06:17:00.000Z', why: 'payday_morning' });
    const text = orderText(view);
    expect(text).toContain('#1 2026-03-06T06:17:00.000Z  declined 51 insufficient_funds [soft-funds]  (why: payday_morning, 12 ms)');
    expect(text).toContain('next attempt: 2026-03-13T06:17:00.000Z (why: payday_morning)');
    expect(text).toContain('VISA ending 9995');
    for (const out of [text, JSON.stringify(view)]) expect(out).not.toContain('tok_secret_token');
  });

  it('says why a final order has no next attempt', () => {
    const view = orderView({ order: { ...order, status: 'EXPIRED', statusReason: 'expiry_reached', nextAttemptAt: null }, mid: 'mid-1' }, [attempt]);
    expect(view.next).toBeNull();
    expect(orderText(view)).toContain('next attempt: none (expiry_reached)');
  });

  it('names the account an attempt went through, its route and the gateway\'s own code', () => {
    const viaStripe = { ...attempt, accountId: '5f0c1f64-61c5-4b8e-9d1f-4a0a8c1f0c11', accountLabel: 'stripe-eu', accountType: 'stripe', route: 'decliner', rawCode: 'insufficient_funds', rawMessage: 'Your card has insufficient funds.', networkTransactionId: 'ntid_1' };
    const view = orderView({ order, mid: 'mid-1' }, [viaStripe]);
    expect(view.attempts[0]!.gateway).toEqual({ account: 'stripe-eu', type: 'stripe', route: 'decliner', rawCode: 'insufficient_funds', rawMessage: 'Your card has insufficient funds.', networkTransactionId: 'ntid_1' });
    expect(orderText(view)).toContain('via stripe-eu (stripe, decliner) raw insufficient_funds "Your card has insufficient funds." ntid ntid_1');
    expect(orderView({ order, mid: 'mid-1' }, [attempt]).attempts[0]!.gateway).toBeNull();
  });
});
