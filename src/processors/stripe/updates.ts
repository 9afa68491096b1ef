// Stripe's automatic card updates, read where a connector can see them. Stripe updates a saved
// card PaymentMethod in place when the networks' updaters report a new expiry or a replacement
// card (docs.stripe.com/payments/cards/overview, "Automatic card updates"), and tells the
// account by the `payment_method.automatically_updated` event (the 2020-08-27 name of
// `payment_method.card_automatically_updated`; stripe-node 23.x Events.d.ts). That event goes to
// the merchant's own webhook endpoint, not to rescued, and a PaymentIntent's answer carries no
// flag saying the card changed. What the API does show is the card twice:
//  - the declined charge's `payment_method_details.card` (`exp_month`, `exp_year`, `last4`,
//    `fingerprint`; Charges.d.ts): the card as it was charged;
//  - the PaymentMethod's `card` (the same four fields; PaymentMethods.d.ts): the card as Stripe
//    holds it now.
// So after a decline that means the card must change, on a Stripe-held PaymentMethod, the
// connector reads both (GET /v1/charges/{id}, GET /v1/payment_methods/{id}) and reports the
// difference: another fingerprint or last four is a replacement card, another expiry the same
// card renewed. Stripe reports no closed accounts this way: the `closed` kind never comes from
// here. A vault card sent as raw card data is not stored at Stripe, so nothing updates it.
import type Stripe from 'stripe';
import { cardUpdate, type CardUpdate } from '../card-update.ts';
import type { ChargeRequest, GatewayAnswer } from '../connector.ts';

// Stripe decline codes (docs.stripe.com/declines/codes) and the Mastercard advice code that say
// the card itself must change: only after these is the PaymentMethod worth reading again.
const CARD_MUST_CHANGE = new Set(['expired_card', 'incorrect_number', 'invalid_number', 'invalid_account', 'lost_card', 'stolen_card', 'pickup_card', 'new_account_information_available']);
const NEW_ACCOUNT_INFORMATION = '01';

type Card = { exp_month?: number | null; exp_year?: number | null; last4?: string | null; fingerprint?: string | null };

/** Whether this decline of this charge is one after which Stripe may have updated the card. */
export function mayHaveUpdate(req: ChargeRequest, answer: GatewayAnswer): boolean {
  if (!req.gatewayMethod || answer.approved) return false;
  return CARD_MUST_CHANGE.has(answer.rawCode ?? '') || answer.adviceCode === NEW_ACCOUNT_INFORMATION;
}

/** The change from the card as charged to the card as Stripe now holds it, if there is one. */
export function compareCards(charged: Card, now: Card, paymentMethod: string): CardUpdate | undefined {
  const replaced = (charged.fingerprint && now.fingerprint && charged.fingerprint !== now.fingerprint) || (charged.last4 && now.last4 && charged.last4 !== now.last4);
  const renewed = now.exp_month !== charged.exp_month || now.exp_year !== charged.exp_year;
  if (!replaced && !renewed) return undefined;
  return cardUpdate({ kind: replaced ? 'replacement' : 'expiry', expMonth: now.exp_month, expYear: now.exp_year, last4: now.last4, gatewayReference: paymentMethod });
}

/**
 * Reads the declined charge's card and the PaymentMethod's. Any failure of these reads leaves
 * the decline as it is (undefined): the decline is already a known outcome, and the update is
 * looked for again after the next one.
 */
export async function updatedCard(stripe: Stripe, req: ChargeRequest, chargeId: string | undefined): Promise<CardUpdate | undefined> {
  const pm = req.gatewayMethod?.paymentMethod;
  if (!pm || !chargeId) return undefined;
  try {
    const [charge, method] = await Promise.all([stripe.charges.retrieve(chargeId), stripe.paymentMethods.retrieve(pm)]);
    const charged = charge.payment_method_details?.card;
    if (!charged || !method.card) return undefined;
    return compareCards(charged, method.card, pm);
  } catch {
    return undefined;
  }
}
