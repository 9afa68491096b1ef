// Our calls → NMI Payment API (transact.php) and Query API (query.php) variables, form-encoded.
// Fields as NMI's Payment API reference in its integration portal lists them
// (https://secure.networkmerchants.com/gw/merchants/resources/integration/integration_portal.php:
// "Transaction Variables", "Credential on File Information", "ECI Values") and the Query API
// reference (https://docs.nmi.com/reference/query-1). The security key is added by the transport.
// - Charge: `type=sale`, `amount` in major units ("Format: x.xx"), `currency` (ISO 4217),
//   `orderid` = our attempt key (the look-up finds the charge by it: NMI has no idempotency
//   key), and either `ccnumber` + `ccexp` (MMYY) or `customer_vault_id`.
// - Stored credentials: a merchant-initiated rebill is `initiated_by=merchant`,
//   `stored_credential_indicator=used`, `billing_method=recurring` for a subscription (no
//   billing method for unscheduled card on file) and the first payment's id in
//   `initial_transaction_id` (credentials.ts: or `initial_network_transaction_id`); a customer
//   in session is `initiated_by=customer`.
// - 3-D Secure done elsewhere: `cardholder_auth` ('verified' | 'attempted', from which NMI
//   sets the ECI: its "ECI Values" table), `cavv`, `three_ds_version`, `directory_server_id`
//   (the 3DS 2 directory server transaction id) and `eci`, as NMI's Gateway.js 3-D Secure flow
//   hands them to the Payment API. `xid` is a 3DS 1 value we never hold, so it is not sent.
import currencyCodes from 'currency-codes';
import { GatewayError, type ChargeRequest, type RefundCall, type ThreeDSecureData } from '../connector.ts';
import type { NmiCredentials } from './credentials.ts';

export type Form = Record<string, string>;

/**
 * Minor units → NMI's decimal major units, with the currency's own number of decimals. A call
 * that cannot be built is refused before it is sent (a GatewayError, never an unknown outcome).
 */
export function majorUnits(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new GatewayError('rejected', 'the amount is not a whole number of minor units', { code: 'invalid_amount' });
  const digits = currencyCodes.code(currency.toUpperCase())?.digits ?? 2;
  if (digits === 0) return String(amount);
  const text = String(amount).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** NMI's `ccexp`: "Format: MMYY". */
export const ccexp = (month: number, year: number): string => `${String(month).padStart(2, '0')}${String(year % 100).padStart(2, '0')}`;

/** `first_name` is the first word of the name on the card, `last_name` the rest (or the one word). */
function names(holderName: string | undefined): Form {
  const words = holderName?.trim().split(/\s+/).filter((w) => w !== '') ?? [];
  if (words.length === 0) return {};
  if (words.length === 1) return { last_name: words[0]! };
  return { first_name: words[0]!, last_name: words.slice(1).join(' ') };
}

function paymentMethod(req: ChargeRequest): Form {
  // A Customer Vault id names the customer and its card at once: NMI has no separate customer id.
  if (req.gatewayMethod) return { customer_vault_id: req.gatewayMethod.paymentMethod };
  const card = req.card;
  if (!card) throw new GatewayError('rejected', 'the charge names neither a card nor a Customer Vault id', { code: 'no_payment_method' });
  // The CVV exists only while a customer completes a challenge: never on a merchant's rebill.
  const cvv: Form = req.cvv && req.initiator === 'customer' ? { cvv: req.cvv } : {};
  return { ccnumber: card.number, ccexp: ccexp(card.expMonth, card.expYear), ...cvv, ...names(card.holderName) };
}

function storedCredential(req: ChargeRequest, chain: NmiCredentials['storedCredentialChain']): Form {
  if (req.initiator === 'customer') return { initiated_by: 'customer' };
  const first = req.networkTransactionId;
  return {
    initiated_by: 'merchant',
    stored_credential_indicator: 'used',
    ...(req.storedCredential === 'unscheduled' ? {} : { billing_method: 'recurring' }),
    ...(first ? { [chain === 'network_transaction_id' ? 'initial_network_transaction_id' : 'initial_transaction_id']: first } : {}),
  };
}

// NMI's "ECI Values" table: Mastercard 02 verified / 01 attempted, other brands 05 / 06.
const CARDHOLDER_AUTH: Record<string, 'verified' | 'attempted'> = { '02': 'verified', '05': 'verified', '01': 'attempted', '06': 'attempted' };

/** Only a completed or attempted authentication with its value is passed on; anything else is no 3DS. */
function threeDSecure(tds: ThreeDSecureData | undefined): Form {
  const eci = tds?.eci?.trim().padStart(2, '0');
  const auth = eci ? CARDHOLDER_AUTH[eci] : undefined;
  if (!tds?.authenticationValue || !eci || !auth) return {};
  return {
    cardholder_auth: auth,
    cavv: tds.authenticationValue,
    eci,
    ...(tds.version ? { three_ds_version: tds.version } : {}),
    ...(tds.dsTransactionId ? { directory_server_id: tds.dsTransactionId } : {}),
  };
}

export function saleForm(req: ChargeRequest, credentials: Pick<NmiCredentials, 'processorId' | 'storedCredentialChain'>): Form {
  return {
    type: 'sale',
    amount: majorUnits(req.amount, req.currency),
    currency: req.currency.toUpperCase(),
    orderid: req.idempotencyKey,
    ...(req.orderId ? { order_description: req.orderId } : {}),
    ...paymentMethod(req),
    ...storedCredential(req, credentials.storedCredentialChain),
    ...(req.initiator === 'customer' ? threeDSecure(req.threeDSecure) : {}),
    ...(credentials.processorId ? { processor_id: credentials.processorId } : {}),
  };
}

/** "Refund": `transactionid` of the charge and the amount ("0.00 will refund the entire amount": never sent). */
export const refundForm = (call: RefundCall): Form => ({ type: 'refund', transactionid: call.processorRef, amount: majorUnits(call.amount, call.currency) });

/** "Void": cancels a sale that has not settled yet. */
export const voidForm = (call: Pick<RefundCall, 'processorRef'>): Form => ({ type: 'void', transactionid: call.processorRef });

/** Query API: the transactions whose order id is the attempt key. */
export const lookupForm = (idempotencyKey: string): Form => ({ order_id: idempotencyKey });
