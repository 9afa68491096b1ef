// Our charge → Adyen Checkout POST /payments (v72, the version @adyen/api-library 32.x calls).
// Every field is checked against the SDK's typings (lib/src/typings/checkout/paymentRequest.d.ts,
// cardDetails.d.ts, threeDSecureData.d.ts, additionalDataCommon.d.ts) and the published spec
// (Adyen/adyen-openapi json/CheckoutService-v72.json):
// - `reference` is the attempt key (unique per payment, at most 80 characters, as Adyen asks);
//   `merchantOrderReference` is the order, linking its attempts ("use this reference to link
//   multiple transactions to one another ... in case of authorization retries").
// - MIT: `shopperInteraction: ContAuth` with `recurringProcessingModel` `Subscription`
//   (recurring) or `UnscheduledCardOnFile`. A vault card is chained to the first payment by
//   `additionalData.networkTxReference` = its scheme transaction id ("Submit the original
//   transaction ID ... if you are not tokenizing card details with Adyen and are making a
//   merchant-initiated transaction", AdditionalDataCommon); an Adyen token chains itself.
// - CIT: `Ecommerce` with `CardOnFile`: the card is stored (in the vault, or as an Adyen
//   token) and the shopper is present, Adyen's "One-click (CardOnFile): a shopper-initiated
//   payment where a returning shopper uses their stored payment details"
//   (docs.adyen.com/online-payments/tokenization/make-token-payments).
// - An Adyen token: `paymentMethod {type: scheme, storedPaymentMethodId}` + `shopperReference`.
// - `additionalData.autoRescue` is never set: rescued schedules the retries itself.
import { Types } from '@adyen/api-library';
import type { ChargeRequest, RefundCall, ThreeDSecureData } from '../connector.ts';

type PaymentRequest = Types.checkout.PaymentRequest;
type CardDetails = Types.checkout.CardDetails;
type MpiData = Types.checkout.ThreeDSecureData;

const { ShopperInteractionEnum, RecurringProcessingModelEnum } = Types.checkout.PaymentRequest;
const { AuthenticationResponseEnum, DirectoryResponseEnum } = Types.checkout.ThreeDSecureData;

/** What the account adds to every payment. */
export interface AdyenAccount {
  merchantAccount: string;
  returnUrl: string;
}

function paymentMethod(req: ChargeRequest): CardDetails {
  const cvc = req.cvv ? { cvc: req.cvv } : {};
  if (req.gatewayMethod) return { type: Types.checkout.CardDetails.TypeEnum.Scheme, storedPaymentMethodId: req.gatewayMethod.paymentMethod, ...cvc };
  const card = req.card!;
  return {
    type: Types.checkout.CardDetails.TypeEnum.Scheme,
    number: card.number,
    expiryMonth: String(card.expMonth).padStart(2, '0'),
    expiryYear: String(card.expYear),
    ...(card.holderName ? { holderName: card.holderName } : {}),
    ...cvc,
  };
}

function processingModel(req: ChargeRequest): PaymentRequest['recurringProcessingModel'] {
  if (req.initiator === 'customer') return RecurringProcessingModelEnum.CardOnFile;
  return req.storedCredential === 'recurring' ? RecurringProcessingModelEnum.Subscription : RecurringProcessingModelEnum.UnscheduledCardOnFile;
}

// Adyen wants the EMV 3-D Secure transStatus of the authentication (directoryResponse from the
// ARes, authenticationResponse from the RRes: docs.adyen.com/online-payments/3d-secure/
// authorize-mpidata, "All schemes"). Our 3-D Secure data carries no transStatus, only the ECI
// the scheme gave for it: 05 (Visa, Amex, Discover, JCB) / 02 (Mastercard) mean authenticated
// (Y), 06 / 01 an attempt (A). Any other ECI says there is no authentication to pass on.
const TRANS_STATUS: Record<string, 'Y' | 'A'> = { '05': 'Y', '02': 'Y', '06': 'A', '01': 'A' };

function mpiData(req: ChargeRequest): MpiData | undefined {
  const tds: ThreeDSecureData | undefined = req.threeDSecure;
  if (req.initiator !== 'customer' || !tds?.authenticationValue || !tds.dsTransactionId || !tds.eci || !tds.version) return undefined;
  const eci = tds.eci.trim().padStart(2, '0');
  const status = TRANS_STATUS[eci];
  if (!status) return undefined;
  return {
    threeDSVersion: tds.version,
    eci,
    cavv: tds.authenticationValue,
    dsTransID: tds.dsTransactionId,
    directoryResponse: DirectoryResponseEnum[status],
    authenticationResponse: AuthenticationResponseEnum[status],
  };
}

function additionalData(req: ChargeRequest): Record<string, string> | undefined {
  if (req.initiator === 'merchant' && req.card && req.networkTransactionId) return { networkTxReference: req.networkTransactionId };
  return undefined;
}

export function paymentRequest(req: ChargeRequest, account: AdyenAccount): PaymentRequest {
  const extra = additionalData(req);
  const mpi = mpiData(req);
  return {
    merchantAccount: account.merchantAccount,
    reference: req.idempotencyKey,
    merchantOrderReference: req.reference,
    amount: { value: req.amount, currency: req.currency.toUpperCase() },
    paymentMethod: paymentMethod(req),
    shopperInteraction: req.initiator === 'merchant' ? ShopperInteractionEnum.ContAuth : ShopperInteractionEnum.Ecommerce,
    recurringProcessingModel: processingModel(req),
    ...(req.gatewayMethod?.customer ? { shopperReference: req.gatewayMethod.customer } : {}),
    ...(extra ? { additionalData: extra } : {}),
    ...(mpi ? { mpiData: mpi } : {}),
    // Metadata values are limited to 80 characters (PaymentRequest.metadata).
    ...(req.orderId ? { metadata: { orderId: req.orderId.slice(0, 80) } } : {}),
    returnUrl: account.returnUrl,
  };
}

/** POST /payments/{pspReference}/refunds (PaymentRefundRequest: amount and merchantAccount required). */
export function refundRequest(req: RefundCall, merchantAccount: string): Types.checkout.PaymentRefundRequest {
  return { merchantAccount, amount: { value: req.amount, currency: req.currency.toUpperCase() }, reference: req.idempotencyKey };
}

/** POST /payments/{pspReference}/cancels (PaymentCancelRequest: merchantAccount required). */
export function cancelRequest(req: Pick<RefundCall, 'idempotencyKey'>, merchantAccount: string): Types.checkout.PaymentCancelRequest {
  return { merchantAccount, reference: req.idempotencyKey };
}
