// Which stops may move an order to the payer's next card (src/engine/cascade.ts): every stop
// reason the planner has, crossed with every canonical decline reason. A stop about the card
// may; a stop about the order (deadline, its own cap) or a decline that speaks for the payer
// (fraud, revocation, "do not try again", authentication) never does; a retry never does.
import { describe, expect, it } from 'vitest';
import { mayCascade } from '../../../src/engine/cascade.ts';
import { STOP_REASONS, type Plan } from '../../../src/engine/plan-types.ts';
import { CANONICAL_REASONS } from '../../../src/declines/reasons.ts';
import type { Classification } from '../../../src/declines/classify.ts';

const CARD_STOPS = ['hard_decline', 'visa_category_1', 'card_data_required_mit', 'visa_reattempt_cap', 'mastercard_attempt_cap', 'mastercard_decline_cap_24h', 'brand_attempt_cap'];
const PAYER_DECLINES = ['suspected_fraud', 'security_violation', 'stop_payment', 'do_not_retry', 'cancelled', 'authentication_required', 'duplicate', 'merchant_side'];

const decline = (reason: string): Classification => ({ reason, class: 'hard', source: 'iso8583' }) as Classification;

describe('mayCascade', () => {
  it('follows the card stops and never the payer\'s declines, over every stop × reason', () => {
    for (const stop of STOP_REASONS) {
      for (const reason of CANONICAL_REASONS) {
        const plan: Plan = { action: 'stop', reason: stop };
        const expected = CARD_STOPS.includes(stop) && !PAYER_DECLINES.includes(reason);
        expect(mayCascade(plan, decline(reason)), `${stop} × ${reason}`).toBe(expected);
      }
    }
  });

  it('never after a retry plan', () => {
    expect(mayCascade({ action: 'retry', at: new Date(), reason: 'daily_spacing' }, decline('lost_or_stolen'))).toBe(false);
  });

  it('the cases the issue names: lost or stolen and expired move on; the deadline and the order cap do not', () => {
    expect(mayCascade({ action: 'stop', reason: 'visa_category_1' }, decline('lost_or_stolen'))).toBe(true);
    expect(mayCascade({ action: 'stop', reason: 'card_data_required_mit' }, decline('expired_card'))).toBe(true);
    expect(mayCascade({ action: 'stop', reason: 'expiry_reached' }, decline('insufficient_funds'))).toBe(false);
    expect(mayCascade({ action: 'stop', reason: 'order_attempt_cap' }, decline('lost_or_stolen'))).toBe(false);
    expect(mayCascade({ action: 'stop', reason: 'mastercard_advice_do_not_retry' }, decline('do_not_retry'))).toBe(false);
  });
});
