// Our charge → Stripe PaymentIntent create parameters, confirmed at creation (stripe-node
// 23.x `PaymentIntentCreateParams`, esm/resources/PaymentIntents.d.ts):
// - MIT: `off_session: true` and `payment_method_options.card.stored_credential_usage`
//   `recurring` | `unscheduled`. Stripe chains an MIT to the first payment through its own
//   stored PaymentMethod; a network transaction id from another processor has no public
//   create parameter in this SDK version, so it is not sent (README, Stripe).
// - CIT: on-session; a CVV given for a challenge goes in `payment_method_data.card.cvc`;
//   3-D Secure results from the merchant's own authentication in
//   `payment_method_options.card.three_d_secure`.
// - `metadata.rescued_key` carries the attempt key, for the search used by lookup.
import type Stripe from 'stripe';
import type { ChargeRequest } from '../connector.ts';

type Params = Stripe.PaymentIntentCreateParams;
type CardOptions = NonNullable<NonNullable<Params['payment_method_options']>['card']>;

function paymentMethod(req: ChargeRequest): Pick<Params, 'payment_method' | 'customer' | 'payment_method_data'> {
  if (req.gatewayMethod) return { payment_method: req.gatewayMethod.paymentMethod, ...(req.gatewayMethod.customer ? { customer: req.gatewayMethod.customer } : {}) };
  const card = req.card!;
  // Raw card fields are not in the SDK's typings (Stripe grants them per account, on request);
  // the API takes them as payment_method_data[card][number] and so on.
  const data = {
    type: 'card',
    card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, ...(req.cvv ? { cvc: req.cvv } : {}) },
    ...(card.holderName ? { billing_details: { name: card.holderName } } : {}),
  };
  return { payment_method_data: data as Params['payment_method_data'] };
}

function cardOptions(req: ChargeRequest): CardOptions | undefined {
  const options: CardOptions = {};
  if (req.initiator === 'merchant') options.stored_credential_usage = req.storedCredential ?? 'unscheduled';
  const tds = req.threeDSecure;
  if (req.initiator === 'customer' && tds?.authenticationValue && tds.dsTransactionId && tds.eci && tds.version) {
    options.three_d_secure = {
      version: tds.version,
      cryptogram: tds.authenticationValue,
      electronic_commerce_indicator: tds.eci,
      transaction_id: tds.dsTransactionId,
    };
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

export function paymentIntentParams(req: ChargeRequest): Params {
  const card = cardOptions(req);
  return {
    amount: req.amount,
    currency: req.currency.toLowerCase(),
    confirm: true,
    ...paymentMethod(req),
    ...(req.initiator === 'merchant' ? { off_session: true } : {}),
    ...(card ? { payment_method_options: { card } } : {}),
    // Card payments only: no redirect-based method may be picked for an off-session retry.
    allowed_payment_method_types: ['card'],
    metadata: { rescued_key: req.idempotencyKey, rescued_order: req.reference, ...(req.orderId ? { order_id: req.orderId } : {}) },
    expand: ['latest_charge'],
  };
}
