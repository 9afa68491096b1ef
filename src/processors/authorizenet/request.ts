// Our calls → Authorize.Net API requests (https://developer.authorize.net/api/reference/).
// The JSON API is a translation of the XML one, and XML elements must come in the order of
// the schema: "Developers using the Authorize.Net API should force the ordering of elements
// to match this API Reference" (API reference, "A Note Regarding JSON Support"). Every object
// below is built in the order of AnetApiSchema.xsd (AuthorizeNet/sdk-php, AnetApiSchema.xsd:
// `ANetApiRequest` merchantAuthentication, refId; `transactionRequestType` transactionType,
// amount, currencyCode, payment, profile, …, refTransId, …, order, …, cardholderAuthentication,
// …, transactionSettings, …, processingOptions, subsequentAuthInformation), keys left out
// where we have nothing to send. Pure functions: no I/O.
//
// Stored credentials (AnetApiSchema.xsd `processingOptions`, `subsequentAuthInformation`;
// developer.authorize.net/api/reference/features/card-on-file.html; the same choices as
// activemerchant's authorize_net.rb add_processing_options / add_settings):
// - MIT: processingOptions.isSubsequentAuth, and subsequentAuthInformation.originalNetworkTransId
//   when the first payment's network transaction id is known. A recurring MIT also carries the
//   transactionSettings `recurringBilling` = true (a settingName the XSD lists in its
//   annotation of transactionSettings); an unscheduled one does not. The schema has no
//   isScheduledPayment. isFirstRecurringPayment / isFirstSubsequentAuth mark the FIRST payment
//   of a series, which rescued never sends (it retries later ones). `reason` is left out: its
//   values (XSD `merchantInitTransReasonEnum`: resubmission, delayedCharge, reauthorization,
//   noShow) are industry-specific MITs, not a subscription's rebill.
// - CIT: processingOptions.isStoredCredentials only for a customer profile ("initiated by a
//   customer using the merchant's stored COF data"). A vault card in a CIT is the card of the
//   purchase being retried, and rescued cannot tell whether the customer agreed to have it
//   stored: no flag, an ordinary e-commerce purchase. 3-D Secure results go in
//   cardholderAuthentication {authenticationIndicator = ECI, cardholderAuthenticationValue =
//   CAVV/AAV}; the schema has no field for the 3-D Secure version or the directory server
//   transaction id. Never on an MIT: reason 119, "Transactions having cardholder
//   authentication values cannot be marked as recurring".
import { createHash } from 'node:crypto';
import { GatewayError, type ChargeRequest, type RefundCall } from '../connector.ts';

type Json = Record<string, unknown>;
export interface MerchantAuthentication {
  name: string;
  transactionKey: string;
}

/**
 * The longest duplicate window Authorize.Net accepts (28800 s, 8 h: reason code 11 in
 * responseCodes.json). Each attempt has its own invoiceNumber, so a new attempt is never a
 * duplicate; the same attempt sent again within 8 h is refused as reason 11 and, because the
 * window was sent, the answer names the original transaction (the SIM guide, "Response for
 * Duplicate Transactions"), which index.ts then reads. A net under the look-up, not instead of it.
 */
export const DUPLICATE_WINDOW_SECONDS = 28800;

/** Rows per page of the transaction lists: the largest `Paging.limit` the XSD allows. */
export const PAGE_SIZE = 1000;

/**
 * 20 characters standing for one of our keys: refId and order.invoiceNumber hold at most 20
 * (XSD `ANetApiRequest.refId`, `orderType.invoiceNumber`), our keys run to about 45. The first
 * 20 base-36 digits of its SHA-256 (about 103 bits): the same key always gives the same id, so
 * the look-up can find the charge by its invoiceNumber.
 */
export function gatewayIdFor(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return BigInt(`0x${hex}`).toString(36).padStart(50, '0').slice(0, 20).toUpperCase();
}

/** The currencies Authorize.Net supports (responseCodes.json, reason 39): all with two decimals. */
const CURRENCIES = new Set(['AUD', 'CAD', 'CHF', 'DKK', 'EUR', 'GBP', 'NOK', 'NZD', 'PLN', 'SEK', 'USD', 'ZAR']);

/**
 * Minor units → the decimal string the API takes, and the currency code. Any other currency is
 * refused before sending: its amount could not even be written right.
 */
export function amountOf(minor: number, currency: string): { amount: string; currencyCode: string } {
  const currencyCode = currency.toUpperCase();
  if (!CURRENCIES.has(currencyCode)) throw new GatewayError('rejected', `Authorize.Net does not process ${currencyCode}`, { code: 'currency_not_supported' });
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new GatewayError('rejected', 'the amount is not a positive whole number of minor units', { code: 'invalid_amount' });
  return { amount: `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`, currencyCode };
}

const settings = (...pairs: [string, string][]) => ({ setting: pairs.map(([settingName, settingValue]) => ({ settingName, settingValue })) });

/** payment.creditCard (expirationDate YYYY-MM, XSD `creditCardSimpleType`) or a CIM profile (`customerProfilePaymentType`). */
function paymentOf(req: ChargeRequest): Json {
  const cardCode = req.cvv ? { cardCode: req.cvv } : {};
  if (req.gatewayMethod) {
    const { paymentMethod, customer } = req.gatewayMethod;
    if (!customer) throw new GatewayError('rejected', 'an Authorize.Net payment profile is charged with its customer profile: name it in additionalFields processor.customer', { code: 'customer_profile_missing' });
    return { profile: { customerProfileId: customer, paymentProfile: { paymentProfileId: paymentMethod, ...cardCode } } };
  }
  const card = req.card;
  if (!card) throw new GatewayError('rejected', 'the charge has neither a card nor a gateway payment method', { code: 'payment_missing' });
  return { payment: { creditCard: { cardNumber: card.number, expirationDate: `${card.expYear}-${String(card.expMonth).padStart(2, '0')}`, ...cardCode } } };
}

function cardholderAuthentication(req: ChargeRequest): Json {
  const tds = req.threeDSecure;
  if (req.initiator !== 'customer' || !tds?.eci || !tds.authenticationValue) return {};
  return { cardholderAuthentication: { authenticationIndicator: tds.eci, cardholderAuthenticationValue: tds.authenticationValue } };
}

/** The merchant's reports show this beside the invoiceNumber (orderType.description, ≤ 255). */
function describe(key: string, orderId: string | undefined): string {
  return `rescued ${key}${orderId ? ` order ${orderId}` : ''}`.slice(0, 255);
}

export function chargeRequest(auth: MerchantAuthentication, req: ChargeRequest): Json {
  const id = gatewayIdFor(req.idempotencyKey);
  const mit = req.initiator === 'merchant';
  const recurring = mit && (req.storedCredential ?? 'unscheduled') === 'recurring';
  const transactionRequest = {
    transactionType: 'authCaptureTransaction',
    ...amountOf(req.amount, req.currency),
    ...paymentOf(req),
    order: { invoiceNumber: id, description: describe(req.idempotencyKey, req.orderId) },
    ...cardholderAuthentication(req),
    transactionSettings: settings(['duplicateWindow', String(DUPLICATE_WINDOW_SECONDS)], ...(recurring ? [['recurringBilling', 'true'] as [string, string]] : [])),
    ...(mit ? { processingOptions: { isSubsequentAuth: true } } : req.gatewayMethod ? { processingOptions: { isStoredCredentials: true } } : {}),
    ...(mit && req.networkTransactionId ? { subsequentAuthInformation: { originalNetworkTransId: req.networkTransactionId } } : {}),
  };
  return { createTransactionRequest: { merchantAuthentication: auth, refId: id, transactionRequest } };
}

/**
 * refundTransaction: the charge's transId, the card's last four and "XXXX" for its expiry (XSD
 * `creditCardSimpleType`: "four X's"). Its own invoiceNumber, from the refund's key, so a
 * refund sent twice within the duplicate window is refused (reason 11) rather than paid twice.
 */
export function refundRequest(auth: MerchantAuthentication, req: RefundCall, last4: string): Json {
  const id = gatewayIdFor(req.idempotencyKey);
  const transactionRequest = {
    transactionType: 'refundTransaction',
    ...amountOf(req.amount, req.currency),
    payment: { creditCard: { cardNumber: last4, expirationDate: 'XXXX' } },
    refTransId: req.processorRef,
    order: { invoiceNumber: id, description: describe(req.idempotencyKey, undefined) },
    transactionSettings: settings(['duplicateWindow', String(DUPLICATE_WINDOW_SECONDS)]),
  };
  return { createTransactionRequest: { merchantAuthentication: auth, refId: id, transactionRequest } };
}

export function voidRequest(auth: MerchantAuthentication, req: Pick<RefundCall, 'idempotencyKey' | 'processorRef'>): Json {
  return { createTransactionRequest: { merchantAuthentication: auth, refId: gatewayIdFor(req.idempotencyKey), transactionRequest: { transactionType: 'voidTransaction', refTransId: req.processorRef } } };
}

// Transaction Reporting (XSD getUnsettledTransactionListRequest: status, sorting, paging;
// getSettledBatchListRequest: includeStatistics, firstSettlementDate, lastSettlementDate;
// getTransactionListRequest: batchId, sorting, paging; getTransactionDetailsRequest: transId).
// Paging.offset is the page number, from 1. `status: any` also lists transactions held for
// review (TransactionGroupStatusEnum any | pendingApproval).
const newestFirst = { orderBy: 'submitTimeUTC', orderDescending: true };
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function unsettledRequest(auth: MerchantAuthentication, page: number, limit = PAGE_SIZE): Json {
  return { getUnsettledTransactionListRequest: { merchantAuthentication: auth, status: 'any', sorting: newestFirst, paging: { limit, offset: page } } };
}

export function settledBatchesRequest(auth: MerchantAuthentication, from: Date, to: Date): Json {
  return { getSettledBatchListRequest: { merchantAuthentication: auth, includeStatistics: false, firstSettlementDate: isoSeconds(from), lastSettlementDate: isoSeconds(to) } };
}

export function batchTransactionsRequest(auth: MerchantAuthentication, batchId: string, page: number): Json {
  return { getTransactionListRequest: { merchantAuthentication: auth, batchId, sorting: newestFirst, paging: { limit: PAGE_SIZE, offset: page } } };
}

export function detailsRequest(auth: MerchantAuthentication, transId: string): Json {
  return { getTransactionDetailsRequest: { merchantAuthentication: auth, transId } };
}

export function authenticateTestRequest(auth: MerchantAuthentication): Json {
  return { authenticateTestRequest: { merchantAuthentication: auth } };
}
