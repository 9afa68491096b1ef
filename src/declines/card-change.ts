// Which declines mean the card itself must change (docs/engine.md "Card updates"): no retry of
// the same card can succeed, but the same payment can on an updated card (a new expiry, a
// replacement number, the payer's other card). Read from the classification, never from a
// list of codes, so every table (ISO 8583 and each gateway's) answers alike.
import type { Classification } from './classify.ts';
import type { CanonicalReason } from './reasons.ts';

/**
 * Reasons that name the card as the problem. Not among them: fraud, security and stop-payment
 * reasons (the payer or issuer refused the payment, not the card), CVV and authentication
 * (the same card with the customer present), and every soft reason.
 */
export const CARD_CHANGE_REASONS: ReadonlySet<CanonicalReason> = new Set<CanonicalReason>([
  'expired_card',
  'invalid_expiry',
  'lost_or_stolen',
  'pickup_card',
  'closed_account',
  'invalid_account',
  'invalid_card_number',
  'new_account_information',
]);

/** True when only an updated card can rescue the payment: the reason, or an "update the card" advice (Mastercard MAC 01, Stripe's data advice). */
export function needsNewCard(c: Pick<Classification, 'reason' | 'class' | 'advice'>): boolean {
  if (c.class === 'soft') return false;
  if (c.advice?.action === 'update_card') return true;
  return CARD_CHANGE_REASONS.has(c.reason);
}
