// Which declines make an order wait for an updated card, over the classification tables: cases
// drawn from a seed across every table's codes (ISO 8583 and each gateway's), Mastercard advice
// codes, brands, order ages and the merchant's setting. The expectation comes from the table
// row of the code (its canonical reason and class), not from the code under test: a code whose
// row names the card as the problem (or a Mastercard MAC 01) waits when the plan would have
// stopped for it; with the setting off, or for any other decline, the move is today's.
import { describe, expect, it } from 'vitest';
import { seeded } from '../../helpers/seeded.ts';
import { ISO8583_CODES } from '../../../src/declines/iso8583.ts';
import { ADYEN_CODES } from '../../../src/declines/tables/adyen.ts';
import { AUTHORIZENET_CODES } from '../../../src/declines/tables/authorizenet.ts';
import { BRAINTREE_CODES } from '../../../src/declines/tables/braintree.ts';
import { CHECKOUTCOM_CODES } from '../../../src/declines/tables/checkoutcom.ts';
import { NMI_CODES } from '../../../src/declines/tables/nmi.ts';
import { STRIPE_CODES } from '../../../src/declines/tables/stripe.ts';
import type { Row } from '../../../src/declines/reasons.ts';
import { MASTERCARD_ADVICE_MEANINGS } from '../../../src/declines/mastercard.ts';
import { defaultRules } from '../../../src/engine/rules.ts';
import { originalDecline, planMove, planOrder } from '../../../src/engine/lifecycle.ts';
import type { WorkOrder } from '../../../src/db/queries/claim-orders.ts';

const SEED = 2711;
const CASES = 3000;
const TABLES: Array<[string, Record<string, Row>]> = [
  ['iso8583', ISO8583_CODES], ['adyen', ADYEN_CODES], ['authorizenet', AUTHORIZENET_CODES], ['braintree', BRAINTREE_CODES],
  ['checkout.com', CHECKOUTCOM_CODES], ['nmi', NMI_CODES], ['stripe', STRIPE_CODES],
].map(([s, t]) => [s as string, t as unknown as Record<string, Row>]);
/** The reasons that name the card itself (docs/engine.md "Card updates"), written here from the docs. */
const CARD_MUST_CHANGE = new Set(['expired_card', 'invalid_expiry', 'lost_or_stolen', 'pickup_card', 'closed_account', 'invalid_account', 'invalid_card_number', 'new_account_information']);
const MACS = [null, null, null, '01', '03', '21', '24', '25', '40'];
const BRANDS = ['VISA', 'MASTERCARD', 'AMEX'];
const NOW = new Date('2026-11-27T12:00:00Z');

const pick = <T,>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

function order(source: string, code: string, brand: string, mac: string | null, daysLeft: number): WorkOrder {
  return {
    id: '6f0c5a1e-0000-4000-8000-000000000001', merchantId: 'm', batchId: null, orderId: 'o', status: 'SUBMITTED', amount: 1000, currency: 'USD',
    cardToken: 'tok_a', cardBrand: brand, cardBin: '400000', expiresAt: new Date(NOW.getTime() + daysLeft * 86_400_000), declineCode: code, declineSource: source,
    request: { transaction: { merchantAdviceCode: mac, timezoneUtcOffset: 0 } }, planReason: null, attemptCount: 0, createdAt: NOW, leaseOwner: null, credential: null, cardUpdates: null,
  };
}

describe(`waiting for an updated card, ${CASES} cases from seed ${SEED}`, () => {
  it('waits exactly when the table says the card must change and the plan stops for it', () => {
    const r = seeded(SEED);
    const seen = { waited: 0, stoppedAnyway: 0, retried: 0 };
    for (let i = 0; i < CASES; i++) {
      const [source, table] = pick(r, TABLES);
      const code = pick(r, Object.keys(table));
      const row = table[code]!;
      const brand = pick(r, BRANDS);
      const mac = pick(r, MACS);
      const enabled = r() < 0.75;
      const o = order(source, code, brand, mac, pick(r, [0.01, 3, 20]));
      const decline = originalDecline(o, defaultRules, NOW);
      const p = planOrder(o, decline, { attempts: [], cardAttempts: [] }, defaultRules, NOW);
      const today = planMove({ rules: defaultRules, testMode: true, models: async () => null }, o, 'SUBMITTED', p, NOW, 0);
      const move = planMove({ rules: defaultRules, testMode: true, models: async () => null }, o, 'SUBMITTED', p, NOW, 0, decline, enabled);
      // Mastercard's advice beats the code (card-networks.md): MAC 01 asks for the new account
      // information; a retry advice makes the decline soft; a stop advice keeps a hard code's
      // reason and replaces any other's. Without advice, the table's row decides.
      const advice = brand === 'MASTERCARD' && mac ? (MASTERCARD_ADVICE_MEANINGS as Record<string, Row>)[mac] : undefined;
      const rowSays = CARD_MUST_CHANGE.has(row[0]) && !row[1].startsWith('soft');
      const mustChange = !advice ? rowSays : mac === '01' ? true : advice[1].startsWith('soft') ? false : rowSays && row[1] === 'hard';
      const stopsForTheDecline = p.action === 'stop' && ['visa_category_1', 'mastercard_advice_do_not_retry', 'hard_decline', 'card_data_required_mit'].includes(p.reason);
      const why = `${source} ${code} (${row.join('/')}) ${brand} MAC ${mac} on=${enabled} plan=${JSON.stringify(p)}`;
      if (enabled && mustChange && stopsForTheDecline) {
        seen.waited++;
        expect(move.move, why).toMatchObject({ status: 'PENDING', planReason: 'awaiting_updated_card', nextAttemptAt: null });
        expect(move.event, why).toMatchObject({ type: 'order.card_update_needed', status: 'PENDING', reason: today.move.statusReason });
        // The decline the merchant is told: a card-must-change reason, or MAC 01 (new account information) whatever the code said.
        expect(CARD_MUST_CHANGE.has(move.event!.decline!.reason) || move.event!.decline!.adviceCode === '01', why).toBe(true);
      } else {
        if (p.action === 'stop') seen.stoppedAnyway++;
        else seen.retried++;
        expect(move, why).toEqual(today);
      }
    }
    // The draw reaches every branch.
    expect(seen.waited).toBeGreaterThan(100);
    expect(seen.stoppedAnyway).toBeGreaterThan(100);
    expect(seen.retried).toBeGreaterThan(100);
  });
});
