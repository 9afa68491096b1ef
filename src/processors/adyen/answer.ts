// Adyen's answers → ours (CheckoutService-v72.json PaymentResponse and ServiceError;
// @adyen/api-library lib/src/typings/checkout/paymentResponse.d.ts and
// responseAdditionalDataCommon.d.ts):
// - `resultCode` Authorised: approved; `additionalData.networkTxReference` is the scheme
//   transaction id (Visa Transaction ID / Mastercard Trace ID) later MITs chain to.
// - Refused, Error, Cancelled: a decline. `refusalReasonCode` is the raw code the engine's
//   table (src/declines/tables/adyen.ts) keys by, `refusalReason` its text. With "Raw acquirer
//   result" enabled, `additionalData.refusalReasonRaw` is the scheme's own answer, e.g.
//   "51 : Insufficient funds", "with or without a leading zero"
//   (docs.adyen.com/development-resources/raw-acquirer-responses): its code, when it is an
//   ISO 8583 one, is the response code shown. `additionalData.merchantAdviceCode` (Mastercard
//   MAC, e.g. "01: New account information available") gives the advice code.
// - RedirectShopper / IdentifyShopper / ChallengeShopper: the issuer wants 3-D Secure.
// - Received, Pending and the rest: no final outcome yet (it comes by webhook): unknown.
// - Real Time Account Updater (docs.adyen.com/online-payments/account-updater/
//   real-time-account-updater): on a refused ContAuth payment Adyen asks the scheme for updated
//   details and, when there are some, retries inside the same payment, so the answer (Authorised
//   or Refused) may carry `additionalData.realtimeAccountUpdaterStatus` (ResponseAdditionalDataCommon:
//   CardChanged, CardExpiryChanged, CloseAccount, ContactCardAccountHolder) with, when the
//   merchant account turned them on (Developers > Additional data), the updated card's
//   `expiryDate` ("3/2030", ResponseAdditionalDataCommon) and `cardSummary` (its last four,
//   ResponseAdditionalDataCard). An Adyen token is updated in place: the token's id stays, and
//   comes back as `tokenization.storedPaymentMethodId` or `recurring.recurringDetailReference`.
//   The updated card number itself (offered encrypted to fully PCI-compliant merchants) is
//   never read.
// Errors are `ServiceError` {status, errorCode, message, errorType} (or the RFC 7807 form
// with `detail`, docs.adyen.com/errors); none of them judges the card.
import type { Types } from '@adyen/api-library';
import { looksLikeIsoCode, normaliseIsoCode } from '../../declines/iso8583.ts';
import { table as adyenCodes } from '../../declines/tables/adyen.ts';
import { cardUpdate, type CardUpdate } from '../card-update.ts';
import { GatewayError, type GatewayAnswer } from '../connector.ts';

type PaymentResponse = Types.checkout.PaymentResponse;

const ACTIONS = new Set(['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper']);
const DECLINES = new Set(['Refused', 'Error', 'Cancelled']);
// Adyen's refusal reason for "Authentication required" (refusal-reasons page, code 38): the
// raw code an authentication request is recorded under, so the engine's table classifies it.
const AUTHENTICATION_REQUIRED = '38';

/** "51 : Insufficient funds" → "51"; "5: Do not honor" → "05"; text without a code → undefined. */
export function isoFromRaw(raw: string | undefined): string | undefined {
  const code = raw === undefined ? undefined : /^\s*([0-9A-Za-z]{1,2})\s*(?::|$)/.exec(raw)?.[1];
  return code && looksLikeIsoCode(code) ? normaliseIsoCode(code) : undefined;
}

/** "01: New account information available" → "01"; "3" → "03". */
export function adviceFromRaw(raw: string | undefined): string | undefined {
  const code = raw === undefined ? undefined : /^\s*(\d{1,2})(?!\d)/.exec(raw)?.[1];
  return code && code.padStart(2, '0');
}

// `ContactCardAccountHolder`: the scheme has no usable card to offer and the cardholder must be
// asked, which for rescued is the same as a closed account: no credential to charge.
const UPDATER_KINDS: Record<string, CardUpdate['kind']> = { CardExpiryChanged: 'expiry', CardChanged: 'replacement', CloseAccount: 'closed', ContactCardAccountHolder: 'closed' };

/** What the Real Time Account Updater changed during this payment, if it changed anything. */
export function updaterResult(extra: Record<string, string | undefined>): CardUpdate | undefined {
  const kind = UPDATER_KINDS[extra.realtimeAccountUpdaterStatus?.trim() ?? ''];
  if (!kind) return undefined;
  const [expMonth, expYear] = kind === 'closed' ? [] : (/^\s*(\d{1,2})\/(\d{2}|\d{4})\s*$/.exec(extra.expiryDate ?? '')?.slice(1) ?? []);
  return cardUpdate({
    kind,
    expMonth,
    expYear,
    last4: kind === 'closed' ? undefined : extra.cardSummary,
    gatewayReference: extra['tokenization.storedPaymentMethodId'] ?? extra['recurring.recurringDetailReference'],
  });
}

/** `{ cardUpdate }` when the answer carries one, for spreading into an answer. */
function withUpdate(res: PaymentResponse): Pick<GatewayAnswer, 'cardUpdate'> {
  const update = updaterResult(res.additionalData ?? {});
  return update ? { cardUpdate: update } : {};
}

function decline(res: PaymentResponse, result: string): GatewayAnswer {
  const extra = res.additionalData ?? {};
  // Without a refusalReasonCode the result code itself names the reason ("Refused",
  // "Cancelled" are refusalReason texts the table also matches).
  const rawCode = res.refusalReasonCode ?? result;
  const known = adyenCodes.lookup(rawCode);
  const authentication = known?.row[0] === 'authentication_required';
  const fallback = result === 'Error' && !res.refusalReasonCode ? '96' : (known?.iso ?? '05');
  const advice = adviceFromRaw(extra.merchantAdviceCode);
  return {
    approved: false,
    responseCode: isoFromRaw(extra.refusalReasonRaw) ?? fallback,
    ...(advice ? { adviceCode: advice } : {}),
    ...(authentication ? { challenge: '3ds' as const } : {}),
    processorRef: res.pspReference ?? 'unknown',
    rawCode,
    rawMessage: res.refusalReason ?? result,
    ...withUpdate(res),
  };
}

export function fromPaymentResponse(res: PaymentResponse): GatewayAnswer {
  const result = res.resultCode as string | undefined;
  if (result === 'Authorised') {
    if (!res.pspReference) throw new GatewayError('unknown', 'Adyen answered Authorised without a pspReference');
    const networkTransactionId = res.additionalData?.networkTxReference;
    return { approved: true, responseCode: '00', processorRef: res.pspReference, rawCode: result, ...(networkTransactionId ? { networkTransactionId } : {}), ...withUpdate(res) };
  }
  if (result !== undefined && DECLINES.has(result)) return decline(res, result);
  if (result !== undefined && ACTIONS.has(result)) {
    return { approved: false, responseCode: '1A', challenge: '3ds', processorRef: res.pspReference ?? 'unknown', rawCode: AUTHENTICATION_REQUIRED, rawMessage: result };
  }
  // Received / Pending (the outcome arrives later by webhook), PartiallyAuthorised (never
  // asked for), or no resultCode at all: what happened to the money is not known here.
  return unknownResult(result);
}

function unknownResult(result: string | undefined): never {
  throw new GatewayError('unknown', result ? `Adyen answered resultCode ${result}: no final outcome yet` : 'Adyen answered without a resultCode', result ? { code: result } : {});
}

/** A refund or cancel request: Adyen only acknowledges it (`status: received`); the outcome comes by webhook. */
export function fromModification(res: { status?: string; pspReference?: string }, operation: 'refund' | 'cancel'): GatewayAnswer {
  if (!res.pspReference || !res.status) throw new GatewayError('unknown', `Adyen's ${operation} answer has no pspReference or status`);
  const approved = res.status === 'received';
  return { approved, responseCode: approved ? '00' : '12', processorRef: res.pspReference, rawCode: res.status, rawMessage: `${operation} ${res.status}: the outcome comes in the ${operation === 'refund' ? 'REFUND' : 'CANCELLATION'} webhook` };
}

interface ServiceError {
  status?: number;
  errorCode?: string;
  message?: string;
  detail?: string;
  title?: string;
  errorType?: string;
}

function parseError(body: string): ServiceError {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as ServiceError) : {};
  } catch {
    return {};
  }
}

// Adyen's messages name fields, not values; long digit runs are masked all the same, so no
// card number can reach a log through them.
const safeText = (text: string | undefined) => (text ?? '').replace(/\d{6,}/g, '…').slice(0, 160);

/** A non-2xx answer as a GatewayError; `body` is Adyen's error body. */
export function fromHttpError(status: number, body: string): GatewayError {
  const e = parseError(body);
  const code = e.errorCode;
  const opts = { status, ...(code ? { code } : {}) };
  const said = safeText(e.message ?? e.detail ?? e.title);
  // 704 "request already processed or in progress" (HTTP 409): a call with this
  // Idempotency-Key is still running at Adyen, and it may charge (seen answering a second
  // /payments with the same key while the first was authorised: vtexdocs/known-issues,
  // adyen-3ds2-double-request-generates-payment-authorization-denial).
  if (status === 409 || code === '704') return new GatewayError('unknown', `Adyen is still processing a call with this Idempotency-Key (HTTP ${status}${code ? `, ${code}` : ''})`, opts);
  if (status >= 500) return new GatewayError('unknown', `Adyen answered HTTP ${status}${code ? ` (${code})` : ''}`, opts);
  if (status === 401) return new GatewayError('rejected', 'Adyen refused the API key (HTTP 401)', opts);
  if (status === 403) return new GatewayError('rejected', `Adyen refused the call for this API key or merchant account (HTTP 403${code ? `, ${code}` : ''}${said ? `: ${said}` : ''})`, opts);
  if (status === 429) return new GatewayError('rejected', 'Adyen is rate limiting the account (HTTP 429)', opts);
  if (status >= 400) return new GatewayError('rejected', `Adyen refused the request (HTTP ${status}${code ? `, ${code}` : ''}${said ? `: ${said}` : ''})`, opts);
  return new GatewayError('unknown', `Adyen answered HTTP ${status}`, opts);
}

/**
 * A call that got no answer. `sent`: the TLS connection was up, so the request may have
 * reached Adyen; before that nothing left this machine.
 */
export function fromNetworkError(err: unknown, sent: boolean): GatewayError {
  const e = err as { name?: string; code?: string };
  const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
  const what = timedOut ? 'did not answer in time' : `could not be reached (${e.code ?? e.name ?? 'connection error'})`;
  return new GatewayError(sent ? 'unknown' : 'not_sent', `Adyen ${what}${sent ? ' after the request was sent' : ''}`, e.code ? { code: e.code } : {});
}
