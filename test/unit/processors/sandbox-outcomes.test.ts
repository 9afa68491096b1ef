// Every outcome kind of samples/test-cards.json, decided purely from the card, the call, the
// clock and the order's earlier calls.
import { describe, expect, it } from 'vitest';
import { decideAuthorize, decideRefund, decideVoid, sandboxRef, type PriorCall } from '../../../src/processors/sandbox-outcomes.ts';
import type { AuthorizeRequest } from '../../../src/processors/types.ts';
import { OUTCOME_KINDS, sandboxTestCards, type OutcomeKind, type TestCard } from '../../../src/vault/test-cards.ts';

const cards = sandboxTestCards();
const card = (number: string): TestCard => cards.find(number)!;
const request = (over: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  idempotencyKey: 'k:1', reference: 'order-1', merchantId: 'm', cardToken: 'tok', amount: 1000, currency: 'USD', isMIT: true, timezoneUtcOffset: 0, ...over,
});
const charge = (at: string, approved = false): PriorCall => ({ operation: 'authorize', approved, at: new Date(at), answer: { approved, responseCode: approved ? '00' : '05', processorRef: `ref-${at}`, amount: 1000 } });
// Tuesday 2026-03-10: not a payday (not the 1st, 15th, last business day or a Friday).
const TUESDAY = new Date('2026-03-10T12:00:00Z');

describe('sandbox outcomes', () => {
  it('covers every outcome kind of the list', () => {
    const tested: OutcomeKind[] = ['approve', 'decline', 'approve_after', 'approve_on_payday', 'issuer_outage_then_approve', 'retry_after', 'challenge'];
    expect([...OUTCOME_KINDS].sort()).toEqual([...tested].sort());
  });

  it('approve: every attempt approved', () => {
    expect(decideAuthorize(card('4111111111111111'), request(), TUESDAY, [])).toEqual({ approved: true, responseCode: '00' });
  });

  it('decline: the code, reason and advice code of the card, every time', () => {
    expect(decideAuthorize(card('4000000000009995'), request(), TUESDAY, [charge('2026-03-01')])).toEqual({ approved: false, responseCode: '51', reason: 'insufficient_funds' });
    expect(decideAuthorize(card('5200828282828210'), request(), TUESDAY, [])).toEqual({ approved: false, responseCode: '05', reason: 'do_not_honor', adviceCode: '03' });
  });

  it('approve_after: the first N attempts of the order declined, the next approved', () => {
    const c = card('4000000000000077');
    expect(decideAuthorize(c, request(), TUESDAY, []).approved).toBe(false);
    expect(decideAuthorize(c, request(), TUESDAY, [charge('2026-03-01')]).approved).toBe(false);
    expect(decideAuthorize(c, request(), TUESDAY, [charge('2026-03-01'), charge('2026-03-02')])).toEqual({ approved: true, responseCode: '00' });
  });

  it("approve_on_payday: approved on a payday in the payer's local time only", () => {
    const c = card('4000000000000093');
    expect(decideAuthorize(c, request(), TUESDAY, [])).toEqual({ approved: false, responseCode: '51', reason: 'insufficient_funds' });
    expect(decideAuthorize(c, request(), new Date('2026-03-13T12:00:00Z'), []).approved).toBe(true); // Friday
    expect(decideAuthorize(c, request(), new Date('2026-03-15T12:00:00Z'), []).approved).toBe(true); // the 15th (Sunday)
    expect(decideAuthorize(c, request(), new Date('2026-03-31T12:00:00Z'), []).approved).toBe(true); // last business day
    // 2026-03-14 23:30 UTC is Sunday the 15th at 09:30 in UTC+10, still Saturday the 14th in UTC.
    const at = new Date('2026-03-14T23:30:00Z');
    expect(decideAuthorize(c, request({ timezoneUtcOffset: 0 }), at, []).approved).toBe(false);
    expect(decideAuthorize(c, request({ timezoneUtcOffset: 10 }), at, []).approved).toBe(true);
  });

  it('issuer_outage_then_approve: declined 91 until the outage after the first attempt is over', () => {
    const c = card('4000000000000051');
    const first = charge('2026-03-10T10:00:00Z');
    expect(decideAuthorize(c, request(), new Date('2026-03-10T10:00:00Z'), [])).toEqual({ approved: false, responseCode: '91', reason: 'issuer_unavailable' });
    expect(decideAuthorize(c, request(), new Date('2026-03-10T11:59:00Z'), [first]).approved).toBe(false);
    expect(decideAuthorize(c, request(), new Date('2026-03-10T12:00:00Z'), [first]).approved).toBe(true);
  });

  it('retry_after: declined with the advice code until the wait after the first decline is over', () => {
    const c = card('5454545454545454');
    const first = charge('2026-03-10T10:00:00Z');
    expect(decideAuthorize(c, request(), new Date('2026-03-10T10:00:00Z'), [])).toEqual({ approved: false, responseCode: '51', reason: 'insufficient_funds', adviceCode: '25' });
    expect(decideAuthorize(c, request(), new Date('2026-03-11T09:59:00Z'), [first]).approved).toBe(false);
    expect(decideAuthorize(c, request(), new Date('2026-03-11T10:00:00Z'), [first]).approved).toBe(true);
  });

  it('challenge: a CIT is challenged until it carries the CVV or 3-D Secure data; an MIT is declined', () => {
    const cvv = card('4000000000000101');
    const tds = card('4000000000003220');
    expect(decideAuthorize(cvv, request({ isMIT: false }), TUESDAY, [])).toEqual({ approved: false, responseCode: 'N7', reason: 'cvv_failure', challenge: 'cvv' });
    expect(decideAuthorize(cvv, request({ isMIT: false, cvv: '123' }), TUESDAY, []).approved).toBe(true);
    expect(decideAuthorize(tds, request({ isMIT: false }), TUESDAY, [])).toEqual({ approved: false, responseCode: '1A', reason: 'authentication_required', challenge: '3ds' });
    expect(decideAuthorize(tds, request({ isMIT: false, threeDSecure: { cavv: 'x' } }), TUESDAY, []).approved).toBe(true);
    expect(decideAuthorize(tds, request({ isMIT: true }), TUESDAY, [])).toEqual({ approved: false, responseCode: '1A', reason: 'authentication_required' });
  });

  it('a card that is not a test card is declined as no such account', () => {
    expect(decideAuthorize(undefined, request(), TUESDAY, [])).toEqual({ approved: false, responseCode: '14', reason: 'invalid_card_number' });
  });

  it('refunds up to the charge, voids only an untouched charge', () => {
    const ok = charge('2026-03-01', true);
    const ref = ok.answer.processorRef;
    expect(decideRefund(ref, 400, [ok]).approved).toBe(true);
    const refunded: PriorCall = { operation: 'refund', approved: true, at: new Date(), answer: { approved: true, responseCode: '00', processorRef: 'r1', of: ref, amount: 700 } };
    expect(decideRefund(ref, 300, [ok, refunded]).approved).toBe(true);
    expect(decideRefund(ref, 301, [ok, refunded])).toMatchObject({ approved: false, responseCode: '13' });
    expect(decideRefund('unknown', 1, [ok])).toMatchObject({ approved: false, responseCode: '12' });
    expect(decideVoid(ref, [ok]).approved).toBe(true);
    expect(decideVoid(ref, [ok, refunded]).approved).toBe(false);
    const voided: PriorCall = { operation: 'void', approved: true, at: new Date(), answer: { approved: true, responseCode: '00', processorRef: 'v1', of: ref } };
    expect(decideVoid(ref, [ok, voided]).approved).toBe(false);
    expect(decideRefund(ref, 1, [ok, voided]).approved).toBe(false);
  });

  it('references are deterministic per idempotency key', () => {
    expect(sandboxRef('a:1')).toBe(sandboxRef('a:1'));
    expect(sandboxRef('a:1')).not.toBe(sandboxRef('a:2'));
    expect(sandboxRef('a:1')).toMatch(/^sbx_[0-9a-f]{24}$/);
  });
});
