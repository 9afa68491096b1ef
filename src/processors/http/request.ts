// Our calls → the protocol's request bodies (protocol.ts, docs/gateways/http.md), field by
// field: a field added to ChargeRequest or RefundCall reaches a merchant's bridge only when
// it is added here and to the protocol's documentation, never by a spread.
// - A merchant-initiated charge always names its stored-credential use (`unscheduled` when
//   the order does not say, as the Stripe connector does) and carries the first payment's
//   network transaction id when rescued knows it; a customer-initiated one carries neither.
// - The CVV is sent only when given (a challenge being completed), 3-D Secure results only
//   for a customer-initiated charge, as the merchant's own authentication produced them.
import type { ChargeRequest, RefundCall } from '../connector.ts';
import { BRIDGE_VERSION, type BridgeAuthorize, type BridgeLookup, type BridgeOperation, type BridgeRefund, type BridgeTest, type BridgeVoid } from './protocol.ts';

const envelope = <Op extends BridgeOperation>(operation: Op, idempotencyKey: string) => ({ version: BRIDGE_VERSION, operation, idempotencyKey }) as const;

function paymentOf(req: ChargeRequest): Pick<BridgeAuthorize, 'card' | 'paymentMethod'> {
  if (req.gatewayMethod) return { paymentMethod: { id: req.gatewayMethod.paymentMethod, ...(req.gatewayMethod.customer ? { customer: req.gatewayMethod.customer } : {}) } };
  const c = req.card!;
  return { card: { number: c.number, expMonth: c.expMonth, expYear: c.expYear, ...(c.holderName ? { holderName: c.holderName } : {}) } };
}

/** Only the four fields of the protocol, only strings: the router passes what the merchant sent. */
function threeDSecureOf(req: ChargeRequest): BridgeAuthorize['threeDSecure'] {
  const t = req.threeDSecure;
  if (req.initiator !== 'customer' || !t) return undefined;
  const picked = Object.fromEntries((['version', 'eci', 'authenticationValue', 'dsTransactionId'] as const).filter((k) => typeof t[k] === 'string' && t[k] !== '').map((k) => [k, t[k]]));
  return Object.keys(picked).length > 0 ? picked : undefined;
}

export function authorizeBody(req: ChargeRequest): BridgeAuthorize {
  const mit = req.initiator === 'merchant';
  const tds = threeDSecureOf(req);
  return {
    ...envelope('authorize', req.idempotencyKey),
    reference: req.reference,
    ...(req.orderId ? { orderId: req.orderId } : {}),
    amount: req.amount,
    currency: req.currency.toUpperCase(),
    initiator: req.initiator,
    ...(mit ? { storedCredential: req.storedCredential ?? 'unscheduled' } : {}),
    ...(mit && req.networkTransactionId ? { networkTransactionId: req.networkTransactionId } : {}),
    ...paymentOf(req),
    ...(req.cvv ? { cvv: req.cvv } : {}),
    ...(tds ? { threeDSecure: tds } : {}),
  };
}

export const refundBody = (req: RefundCall): BridgeRefund => ({
  ...envelope('refund', req.idempotencyKey),
  reference: req.reference, processorRef: req.processorRef, amount: req.amount, currency: req.currency.toUpperCase(),
  ...(req.last4 ? { last4: req.last4 } : {}),
});

export const voidBody = (req: Omit<RefundCall, 'amount'>): BridgeVoid => ({
  ...envelope('void', req.idempotencyKey),
  reference: req.reference, processorRef: req.processorRef, currency: req.currency.toUpperCase(),
});

/** A read: its own fresh key, so a bridge's stored answers never hide a charge made since. */
export const lookupBody = (key: string, req: { idempotencyKey: string; reference: string }): BridgeLookup => ({
  ...envelope('lookup', key), chargeKey: req.idempotencyKey, reference: req.reference,
});

export const testBody = (key: string): BridgeTest => envelope('test', key);
