// The console's order page for card updates, rendered without a server: the wait for an
// updated card with its decline, each update on the timeline between the attempts it came
// between, the card each attempt charged, and what recovered the order — never a token.
import { describe, expect, it } from 'vitest';
import { orderBody } from '../../../src/http/console/pages/order.ts';
import type { AttemptWithAccount, OrderRow } from '../../../src/db/queries/find-order.ts';

const T = (s: string) => new Date(`2026-03-${s}Z`);
const base = {
  id: '6f0c5a1e-0000-4000-8000-000000000001', merchantId: 'm', batchId: null, sequenceNumber: null, orderId: 'ORD-1', idempotencyKey: 'k', kind: 'MIT' as const,
  amount: 1999, currency: 'USD', cardToken: 'tok_old_secret', cardBrand: 'VISA', cardBin: '400000', cardLast4: '0069',
  expiresAt: T('30T00:00:00'), declineCode: '54', declineSource: 'iso8583', declinedAt: null, declineAdvice: null, priorAttempts: null, request: {},
  attemptCount: 0, leaseOwner: null, leaseExpiresAt: null, confirmationId: null, refundedAmount: 0, createdAt: T('02T10:00:00'), updatedAt: T('02T10:00:00'), finishedAt: null,
  credential: null, cardUpdates: null, recoveredBy: null,
};
const waiting = { since: '2026-03-02T10:00:00.000Z', reason: 'card_data_required_mit: expired_card', decline: { reason: 'expired_card', class: 'data', code: '54', source: 'iso8583', adviceCode: null } };

describe('console order page: card updates', () => {
  it('shows an order waiting for an updated card, and the decline that made it wait', () => {
    const order = { ...base, status: 'PENDING', statusReason: null, planReason: 'awaiting_updated_card', nextAttemptAt: null, awaitingCard: waiting } as OrderRow;
    const page = orderBody({ order, mid: 'mid-1', attempts: [], webhooks: [] }).toString();
    expect(page).toContain('data-next="awaiting-card"');
    expect(page).toMatch(/waiting for an updated card until 2026-03-30T00:00:00.000Z/);
    expect(page).toContain('expired_card (54)');
  });

  it('puts the merchant\'s card on the timeline, the attempt on it, and the cause of the recovery', () => {
    const update = { at: '2026-03-04T09:00:00.000Z', source: 'merchant', kind: 'card', credential: 'tok_new_secret', vaultToken: 'tok_new_secret', bin: '424242', last4: '4242', brand: 'VISA', expMonth: 12, expYear: 2030, afterAttempts: 0 };
    const order = {
      ...base, status: 'APPROVED', statusReason: 'approved', planReason: 'card_updated', nextAttemptAt: null, awaitingCard: waiting, attemptCount: 1, confirmationId: 'sbx_1',
      credential: 'tok_new_secret', cardUpdates: [update], recoveredBy: 'merchant_update', finishedAt: T('04T09:01:00'),
    } as OrderRow;
    const attempt = {
      id: 'a', orderSessionKey: order.id, merchantId: 'm', cardToken: 'tok_new_secret', attemptNo: 1, idempotencyKey: `${order.id}:1`, status: 'approved' as const,
      amount: 1999, currency: 'USD', responseCode: '00', adviceCode: null, declineClass: null, reason: null, processorRef: 'sbx_1', latencyMs: 3, planReason: 'card_updated',
      startedAt: T('04T09:00:30'), finishedAt: T('04T09:00:31'), accountId: null, route: null, rawCode: null, rawMessage: null, networkTransactionId: null, unknownSince: null,
      accountLabel: null, accountType: null,
    } as AttemptWithAccount;
    const page = orderBody({ order, mid: 'mid-1', attempts: [attempt], webhooks: [] }).toString();
    expect(page).toContain('<dd data-field="recoveredBy">merchant_update</dd>');
    expect(page.indexOf('data-update="merchant"')).toBeLessThan(page.indexOf('data-attempt="1"'));
    expect(page).toContain('merchant …4242');
    expect(page).not.toContain('tok_new_secret');
    expect(page).not.toContain('tok_old_secret');
  });
});
