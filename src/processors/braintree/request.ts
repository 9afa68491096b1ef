// Our charge → the attributes of the SDK's `gateway.transaction.sale()`. Every key below is in
// the SDK's list of accepted sale keys (braintree 3.40, lib/braintree/transaction_gateway.js,
// `_createSignature`), which it checks before sending; their meaning is the Transaction: Sale
// reference (https://developer.paypal.com/braintree/docs/reference/request/transaction/sale/node).
// - `amount`: a decimal string in major units, in the merchant account's currency format.
// - `orderId`: our attempt key. Braintree has no idempotency key on this API (its
//   `apiRequestKey` is documented for GraphQL merchants only:
//   https://developer.paypal.com/braintree/graphql/integration_guides/idempotency), so the key
//   is where `lookup` finds the charge again (`transaction.search` on `orderId`).
// - `options.submitForSettlement`: a sale, captured at once, as every rescued approval.
// - MIT: `transactionSource` `recurring` | `unscheduled` (merchant-initiated, on a schedule or
//   not: https://developer.paypal.com/braintree/graphql/reference/types/payment-initiator).
//   A card from rescued's vault is stored outside Braintree: `externalVault.status` `vaulted`,
//   with `previousNetworkTransactionId` (the first payment's scheme id) when known
//   (https://developer.paypal.com/braintree/graphql/reference/types/transaction-external-vault-options-input;
//   the SDK's own tests send `vaulted` with and without it). A Braintree Vault token is
//   chained by Braintree itself: no externalVault.
// - CIT: no `transactionSource` (Braintree: customer-initiated is "when the transactionSource
//   is empty or set to moto, recurring_first, or installment_first",
//   https://developer.paypal.com/braintree/docs/guides/premium-fraud-management-tools/overview),
//   no externalVault (the GraphQL reference says not to send the previous id when the
//   customer initiates the charge). The
//   CVV only when given for a challenge (`creditCard.cvv`); the merchant's own 3-D Secure
//   results in `threeDSecurePassThru` (`eciFlag` is the one required field:
//   https://developer.paypal.com/braintree/graphql/reference/types/three-d-secure-pass-through-input).
import currencyCodes from 'currency-codes';
import type { ChargeRequest } from '../connector.ts';

export interface SaleCreditCard {
  number: string;
  /** MM/YYYY. */
  expirationDate: string;
  cardholderName?: string;
  cvv?: string;
}

export interface SaleThreeDSecure {
  eciFlag: string;
  cavv?: string;
  threeDSecureVersion?: string;
  dsTransactionId?: string;
}

export interface SaleAttributes {
  amount: string;
  orderId: string;
  merchantAccountId?: string;
  paymentMethodToken?: string;
  creditCard?: SaleCreditCard;
  transactionSource?: 'recurring' | 'unscheduled';
  externalVault?: { status: 'vaulted'; previousNetworkTransactionId?: string };
  threeDSecurePassThru?: SaleThreeDSecure;
  options: { submitForSettlement: true };
}

/** Minor units → Braintree's decimal string, with the currency's ISO 4217 exponent (JPY 0, BHD 3). */
export function amountOf(minor: number, currency: string): string {
  const digits = currencyCodes.code(currency.toUpperCase())?.digits ?? 2;
  if (digits === 0) return String(minor);
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${minor < 0 ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function paymentMethod(req: ChargeRequest): Pick<SaleAttributes, 'paymentMethodToken' | 'creditCard'> {
  // A Braintree payment method token names one vaulted method of one customer; the customer id
  // would only pick that customer's default method, so it is not sent beside the token.
  if (req.gatewayMethod) return { paymentMethodToken: req.gatewayMethod.paymentMethod };
  const card = req.card!;
  return {
    creditCard: {
      number: card.number,
      expirationDate: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`,
      ...(card.holderName ? { cardholderName: card.holderName } : {}),
      ...(req.cvv ? { cvv: req.cvv } : {}),
    },
  };
}

function merchantInitiated(req: ChargeRequest): Pick<SaleAttributes, 'transactionSource' | 'externalVault'> {
  if (req.initiator !== 'merchant') return {};
  const transactionSource = req.storedCredential ?? 'unscheduled';
  if (req.gatewayMethod) return { transactionSource };
  return {
    transactionSource,
    externalVault: { status: 'vaulted', ...(req.networkTransactionId ? { previousNetworkTransactionId: req.networkTransactionId } : {}) },
  };
}

function threeDSecure(req: ChargeRequest): SaleThreeDSecure | undefined {
  const tds = req.threeDSecure;
  if (req.initiator !== 'customer' || !tds?.eci) return undefined;
  return {
    eciFlag: tds.eci,
    ...(tds.authenticationValue ? { cavv: tds.authenticationValue } : {}),
    ...(tds.version ? { threeDSecureVersion: tds.version } : {}),
    ...(tds.dsTransactionId ? { dsTransactionId: tds.dsTransactionId } : {}),
  };
}

export function saleAttributes(req: ChargeRequest, merchantAccountId: string | undefined): SaleAttributes {
  const tds = threeDSecure(req);
  return {
    amount: amountOf(req.amount, req.currency),
    orderId: req.idempotencyKey,
    ...(merchantAccountId ? { merchantAccountId } : {}),
    ...paymentMethod(req),
    ...merchantInitiated(req),
    ...(tds ? { threeDSecurePassThru: tds } : {}),
    options: { submitForSettlement: true },
  };
}
