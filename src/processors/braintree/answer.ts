// Braintree's answers → ours. The SDK has no typings: the shapes below are what it builds
// from the gateway's XML (braintree 3.40: lib/braintree/transaction.js, error_response.js,
// validation_errors_collection.js, exceptions.js, http.js), with the fields of the Transaction
// response reference (https://developer.paypal.com/braintree/docs/reference/response/transaction/node).
// - A transaction is an answer about the card, whatever `result.success` says: approved in
//   the statuses of an authorization that stands, declined otherwise. `processorResponseCode`
//   (1000–1999 approved, 2000–2999 declined, 3000 processor network unavailable) is the raw
//   code the engine classifies (src/declines/tables/braintree.ts); `networkResponseCode` is the
//   card network's own code, where Braintree passes it on ("can provide additional detail …
//   processorResponse should be considered the source of truth":
//   https://developer.paypal.com/braintree/graphql/reference/types/payment-network-response);
//   `merchantAdviceCode` is Mastercard's MAC (SDK CHANGELOG 3.16.0).
// - `gateway_rejected`: Braintree's own rules refused the transaction (its AVS/CVV, fraud and
//   risk rules, 3-D Secure rules, an incomplete application), voiding any authorization
//   (https://articles.braintreepayments.com/control-panel/transactions/gateway-rejections).
//   It is still a final answer to this transaction, recorded at Braintree, and the engine has
//   a row for each reason (BRAINTREE_GATEWAY_REJECTIONS: AVS/CVV are data the customer can
//   fix, fraud and risk are hard, set-up problems soft-temporary): so it is a decline whose
//   raw code is the reason, classified there and configurable there, not a GatewayError that
//   would bypass the table. `three_d_secure` (not in the table) reads as ISO 1A.
//   Except `duplicate`: Braintree rejects a sale as a duplicate only when a successful (or
//   still in flight) sale with the same order ID, amount and card came just before
//   (https://developer.paypal.com/braintree/articles/control-panel/transactions/duplicate-checking).
//   Our order ID is the attempt key, so that earlier sale is this very attempt, sent before:
//   its outcome is that sale's, found by `lookup` → `unknown`, never a decline.
// - No transaction at all (validation errors): Braintree refused our request, without
//   judging the card → `rejected`, naming the error codes and attributes only (Braintree's
//   messages may quote what was sent).
import { looksLikeIsoCode, lookupIso } from '../../declines/iso8583.ts';
import { GatewayError, type GatewayAnswer } from '../connector.ts';
import { isoCodeFor } from '../../declines/sources.ts';

export interface BtTransaction {
  id: string;
  status: string;
  type?: string;
  amount?: string;
  orderId?: string | null;
  currencyIsoCode?: string;
  processorResponseCode?: string | null;
  processorResponseText?: string | null;
  processorResponseType?: string | null;
  additionalProcessorResponse?: string | null;
  networkResponseCode?: string | null;
  networkTransactionId?: string | null;
  merchantAdviceCode?: string | null;
  gatewayRejectionReason?: string | null;
}

export interface BtValidationError {
  attribute?: string;
  code?: string;
}

export interface BtResult {
  success: boolean;
  transaction?: BtTransaction;
  errors?: { deepErrors(): BtValidationError[] };
}

/** Statuses of a sale whose money is taken or will be (Transaction response, `status`). */
const APPROVED = new Set(['authorized', 'submitted_for_settlement', 'settling', 'settlement_pending', 'settled', 'settlement_confirmed']);
/** Not decided yet: only a later look-up can tell. */
const PENDING = new Set(['authorizing']);

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';
const isDuplicate = (t: BtTransaction) => t.status === 'gateway_rejected' && t.gatewayRejectionReason === 'duplicate';

/** The network's code when it is a DE39 code we know (the sandbox sends "XX"). */
function networkCode(t: BtTransaction): string | undefined {
  const c = t.networkResponseCode;
  return present(c) && looksLikeIsoCode(c) && lookupIso(c) ? c.trim().toUpperCase() : undefined;
}

function challengeFor(rawCode: string): '3ds' | 'cvv' | undefined {
  if (rawCode === '2099' || rawCode === 'three_d_secure') return '3ds';
  if (rawCode === '2010' || rawCode === 'cvv') return 'cvv';
  return undefined;
}

/**
 * The code the engine's Braintree table keys: the rejection reason, the processor's code of a
 * decline or a failure (3000), else the status itself (a sale found voided or expired).
 */
function rawCodeOf(t: BtTransaction): string {
  if (t.status === 'gateway_rejected') return present(t.gatewayRejectionReason) ? t.gatewayRejectionReason : t.status;
  if ((t.status === 'processor_declined' || t.status === 'failed') && present(t.processorResponseCode)) return t.processorResponseCode;
  return t.status;
}

function declined(t: BtTransaction): GatewayAnswer {
  const rawCode = rawCodeOf(t);
  const rawMessage = t.status === 'gateway_rejected' ? `gateway rejected: ${rawCode}` : [t.processorResponseText, t.additionalProcessorResponse].filter(present).join(' / ') || t.status;
  const challenge = challengeFor(rawCode);
  return {
    approved: false,
    responseCode: networkCode(t) ?? (rawCode === 'three_d_secure' ? '1A' : isoCodeFor('braintree', rawCode)),
    ...(present(t.merchantAdviceCode) ? { adviceCode: t.merchantAdviceCode } : {}),
    ...(challenge ? { challenge } : {}),
    processorRef: t.id,
    rawCode,
    ...(rawMessage ? { rawMessage } : {}),
  };
}

/** A transaction (a sale's answer, or one found again) as our answer. */
export function fromTransaction(t: BtTransaction): GatewayAnswer {
  if (PENDING.has(t.status)) throw new GatewayError('unknown', `Braintree has not finished authorizing transaction ${t.id} (${t.status})`, { code: t.status });
  if (isDuplicate(t)) throw new GatewayError('unknown', `Braintree rejected transaction ${t.id} as a duplicate of an earlier sale with the same order id: the attempt's outcome is that sale's`, { code: 'duplicate' });
  if (!APPROVED.has(t.status)) return declined(t);
  return {
    approved: true,
    responseCode: '00',
    processorRef: t.id,
    rawCode: present(t.processorResponseCode) ? t.processorResponseCode : t.status,
    ...(present(t.processorResponseText) ? { rawMessage: t.processorResponseText } : {}),
    ...(present(t.networkTransactionId) ? { networkTransactionId: t.networkTransactionId } : {}),
  };
}

/**
 * Of the transactions found under one order id (most recent first: Braintree's search
 * results), the one that took money, else one still authorizing, else the latest that is not
 * a duplicate rejection (which only points at another of them).
 */
export function pickCharge(found: BtTransaction[]): BtTransaction {
  return found.find((t) => APPROVED.has(t.status)) ?? found.find((t) => PENDING.has(t.status)) ?? found.find((t) => !isDuplicate(t)) ?? found[0]!;
}

/** The validation errors of a refused request: codes and attributes, never values. */
export function validationCodes(result: BtResult): BtValidationError[] {
  try {
    return result.errors?.deepErrors() ?? [];
  } catch {
    return [];
  }
}

/** A sale's (or refund's) result: an answer when there is a transaction, else `rejected`. */
export function fromResult(result: BtResult, what: string): GatewayAnswer {
  if (result.transaction && typeof result.transaction.id === 'string') return fromTransaction(result.transaction);
  if (result.success) throw new GatewayError('unknown', `Braintree answered the ${what} without a transaction`);
  const errors = validationCodes(result);
  const named = errors.slice(0, 5).map((e) => `${e.code ?? '?'}${e.attribute ? ` (${e.attribute})` : ''}`).join(', ');
  return rejectedBy(`Braintree refused the ${what}: ${named || 'validation error'}`, errors[0]?.code ?? 'validation_error');
}

function rejectedBy(message: string, code: string): never {
  throw new GatewayError('rejected', message, { status: 422, code });
}

const NOT_SENT = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;
const TLS_REFUSED = /self[- ]signed certificate|unable to verify the first certificate|unable to get local issuer certificate|certificate has expired|does not match certificate's altnames/i;

/** HTTP statuses the SDK turns into named errors (lib/braintree/http.js, checkHttpStatus). */
const REJECTED_TYPES: Record<string, [number, string]> = {
  authenticationError: [401, 'Braintree refused the account\'s API keys (HTTP 401)'],
  authorizationError: [403, 'Braintree refused the API key this operation (HTTP 403)'],
  notFoundError: [404, 'Braintree found no such merchant or transaction (HTTP 404)'],
  tooManyRequestsError: [429, 'Braintree is rate limiting the account (HTTP 429)'],
  upgradeRequired: [426, 'Braintree requires a newer client library (HTTP 426)'],
  invalidKeysError: [0, 'the Braintree SDK refused a field of the request before sending it'],
};
const UNKNOWN_TYPES: Record<string, number> = { serverError: 500, serviceUnavailableError: 503, gatewayTimeoutError: 504, requestTimeoutError: 408 };

/**
 * Any failure of an SDK call as a GatewayError. The SDK reports sockets as
 * `UnexpectedError("Unexpected request error: Error: connect ECONNREFUSED …")`, its own timeout
 * as "Request timed out", and an unparsable body as the XML parser's error: only a refused or
 * unresolvable connection is known not to have reached Braintree. Never the SDK's message: an
 * InvalidKeysError names fields, and nothing else of the request may reach a log.
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = (err ?? {}) as { type?: string; message?: string };
  const type = typeof e.type === 'string' ? e.type : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const rejected = type ? REJECTED_TYPES[type] : undefined;
  if (rejected) return new GatewayError('rejected', rejected[1], { ...(rejected[0] ? { status: rejected[0] } : {}), code: type! });
  const status = type ? UNKNOWN_TYPES[type] : undefined;
  if (status) return new GatewayError('unknown', `Braintree answered HTTP ${status}`, { status, code: type! });
  const socket = NOT_SENT.exec(message)?.[1];
  if (socket) return new GatewayError('not_sent', `Braintree could not be reached (${socket})`, { code: socket });
  // A certificate Node refuses fails the TLS handshake, before any byte of the request.
  if (TLS_REFUSED.test(message)) return new GatewayError('not_sent', 'Braintree\'s TLS certificate was refused', { code: 'tls_certificate' });
  const http = /Unexpected HTTP response: (\d{3})/.exec(message)?.[1];
  if (http) return new GatewayError('unknown', `Braintree answered HTTP ${http}`, { status: Number(http), code: type ?? 'unexpectedError' });
  if (/timed out/i.test(message)) return new GatewayError('unknown', 'Braintree did not answer in time', { code: 'timeout' });
  const reset = /\b(ECONNRESET|EPIPE|socket hang up)\b/.exec(message)?.[1];
  if (reset) return new GatewayError('unknown', `the connection to Braintree broke before its answer (${reset})`, { code: reset });
  return new GatewayError('unknown', `Braintree call failed after it was sent (${type ?? 'unreadable answer'})`, { code: type ?? 'unreadable' });
}
