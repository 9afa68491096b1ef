// Authorize.Net's answers → ours. Pure functions.
//
// Shapes (AnetApiSchema.xsd `ANetApiResponse`, `messagesType`, `transactionResponse`,
// `transactionDetailsType`, `transactionSummaryType`, `batchDetailsType`): every answer has
// messages {resultCode Ok|Error, message[{code, text}]}; createTransactionResponse adds
// transactionResponse {responseCode 1 approved | 2 declined | 3 error | 4 held for review,
// transId, networkTransId, messages, errors}. In JSON the XML list wrappers are dropped:
// transactionResponse.errors and .messages, transactions and batchList are arrays
// (AuthorizeNet/sdk-node lib/apicontracts.js: TransactionResponse.Errors, ArrayOfTransactionSummaryType
// and ArrayOfBatchDetailsType read their argument with forEach). The body starts with a UTF-8
// byte-order mark.
//
// The decline code is the response reason code (errors[].errorCode, or messages[].code when
// there is no error: held for review), the key of src/declines/tables/authorizenet.ts. Authorize.Net
// passes on no network response code and no advice code: the ISO code shown is the one of the
// reason's canonical reason (src/declines/table.ts). A responseCode 3 whose reason the table does not
// know says nothing about the card (bad login 13, a currency the account lacks 39, a field the
// account requires 33, …): a GatewayError `rejected`, never a decline.
import { scrubText } from '../../scrub.ts';
import { lookupAuthorizeNet } from '../../declines/tables/authorizenet.ts';
import { GatewayError, type GatewayAnswer } from '../connector.ts';
import { isoCodeFor } from '../../declines/sources.ts';

export interface TransactionResponse {
  responseCode?: string;
  transId?: string;
  networkTransId?: string;
  messages?: { code?: string; description?: string }[];
  errors?: { errorCode?: string; errorText?: string }[];
}

export interface TransactionDetails {
  transId?: string;
  transactionStatus?: string;
  responseCode?: number | string;
  responseReasonCode?: number | string;
  responseReasonDescription?: string;
  networkTransId?: string;
  order?: { invoiceNumber?: string };
  payment?: { creditCard?: { cardNumber?: string } };
}

export interface ApiResponse {
  refId?: string;
  messages?: { resultCode?: string; message?: { code?: string; text?: string }[] };
  transactionResponse?: TransactionResponse;
  transaction?: TransactionDetails;
  transactions?: unknown;
  batchList?: unknown;
  totalNumInResultSet?: number;
}

/** One transaction's result, from a createTransaction answer or from its details. */
export interface Outcome {
  responseCode: string;
  reasonCode: string | undefined;
  reasonText: string | undefined;
  transId: string;
  networkTransId: string | undefined;
}

/** The body as JSON, its byte-order mark dropped; anything else is an answer we cannot read. */
export function parseBody(text: string): ApiResponse {
  let body: unknown;
  try {
    body = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new GatewayError('unknown', 'Authorize.Net answered with a body that is not JSON');
  }
  const result = (body as ApiResponse | null)?.messages?.resultCode;
  if (typeof body !== 'object' || body === null || (result !== 'Ok' && result !== 'Error')) throw new GatewayError('unknown', 'Authorize.Net answered without a result code');
  return body as ApiResponse;
}

// responseCodes.json: E00005–E00008 (key or login invalid, account inactive), E00010/E00011
// (no permission), E00059 (authentication type), E00123/E00124 (access token).
const CREDENTIALS = new Set(['E00005', 'E00006', 'E00007', 'E00008', 'E00010', 'E00011', 'E00059', 'E00123', 'E00124']);

/**
 * An answer with resultCode Error and no transaction result. Only the code is kept: the texts
 * of schema errors (E00003) quote the value they refused, which may be card data.
 */
export function apiError(res: ApiResponse): GatewayError {
  const code = res.messages?.message?.[0]?.code;
  if (!code) return new GatewayError('unknown', 'Authorize.Net answered an error without a code');
  if (CREDENTIALS.has(code)) return new GatewayError('rejected', `Authorize.Net refused the account's credentials (${code})`, { code });
  // "An error occurred during processing. Please try again": nothing says it was not processed.
  if (code === 'E00001') return new GatewayError('unknown', 'Authorize.Net reported a system error (E00001)', { code });
  return new GatewayError('rejected', `Authorize.Net refused the request (${code})`, { code });
}

/** An answer that must be Ok (reporting, authenticateTest). */
export function checkOk(res: ApiResponse): ApiResponse {
  if (res.messages?.resultCode !== 'Ok') throw apiError(res);
  return res;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const realId = (id: string | undefined): string | undefined => (id && id !== '0' ? id : undefined);

export function outcomeOf(tr: TransactionResponse, fallbackRef: string): Outcome {
  const error = tr.errors?.[0];
  const message = tr.messages?.[0];
  return {
    responseCode: tr.responseCode ?? '',
    reasonCode: text(error?.errorCode) ?? text(message?.code),
    reasonText: text(error?.errorText) ?? text(message?.description),
    transId: realId(tr.transId) ?? fallbackRef,
    networkTransId: text(tr.networkTransId),
  };
}

export function outcomeOfDetails(tx: TransactionDetails, fallbackRef: string): Outcome {
  return {
    responseCode: text(tx.responseCode) ?? '',
    reasonCode: text(tx.responseReasonCode),
    reasonText: text(tx.responseReasonDescription),
    transId: realId(tx.transId) ?? fallbackRef,
    networkTransId: text(tx.networkTransId),
  };
}

// Reasons 116–118: the authentication indicator or the cardholder authentication value we
// passed through was refused (responseCodes.json). Authorize.Net has no other 3-D Secure
// answer (it runs no authentication itself): the customer is asked to authenticate again.
const AUTHENTICATION = new Set(['116', '117', '118']);

/** Whether the outcome says something about the card (an approval, a decline, a hold). */
export function judgesCard(o: Outcome): boolean {
  if (o.responseCode === '1' || o.responseCode === '2' || o.responseCode === '4') return true;
  return o.responseCode === '3' && o.reasonCode !== undefined && (AUTHENTICATION.has(o.reasonCode) || lookupAuthorizeNet(o.reasonCode) !== undefined);
}

export function fromOutcome(o: Outcome): GatewayAnswer {
  const rawMessage = o.reasonText ? { rawMessage: scrubText(o.reasonText) } : {};
  const rawCode = o.reasonCode ?? o.responseCode;
  if (o.responseCode === '1') {
    return { approved: true, responseCode: '00', processorRef: o.transId, rawCode, ...rawMessage, ...(o.networkTransId ? { networkTransactionId: o.networkTransId } : {}) };
  }
  if (!['2', '3', '4'].includes(o.responseCode)) throw new GatewayError('unknown', `Authorize.Net answered an unknown responseCode (${o.responseCode || 'none'})`);
  if (!judgesCard(o)) throw new GatewayError('rejected', `Authorize.Net refused the transaction without judging the card (reason ${rawCode})`, { code: rawCode });
  if (AUTHENTICATION.has(rawCode)) return { approved: false, responseCode: '1A', challenge: '3ds', processorRef: o.transId, rawCode, ...rawMessage };
  // Declines (2), errors the table classes (3) and holds for review (4: reasons 252/253).
  return { approved: false, responseCode: isoCodeFor('authorizenet', rawCode), processorRef: o.transId, rawCode, ...rawMessage };
}

/** A createTransaction answer for a charge. */
export function chargeOutcome(res: ApiResponse, fallbackRef: string): Outcome {
  const tr = res.transactionResponse;
  if (!tr?.responseCode) throw res.messages?.resultCode === 'Error' ? apiError(res) : new GatewayError('unknown', 'Authorize.Net answered without a transaction result');
  return outcomeOf(tr, fallbackRef);
}

/**
 * A refund's or a void's answer: anything but an approval is a refusal kept with its reason
 * (54: the charge is not settled yet, void it instead; 16: unknown transaction). `done` is the
 * reason that means the work was already done (310: "This transaction has already been voided").
 */
export function followUpAnswer(res: ApiResponse, fallbackRef: string, refusedIso: string, done?: string): GatewayAnswer {
  const o = chargeOutcome(res, fallbackRef);
  const approved = o.responseCode === '1' || (done !== undefined && o.reasonCode === done);
  return { approved, responseCode: approved ? '00' : refusedIso, processorRef: o.transId, rawCode: o.reasonCode ?? o.responseCode, ...(o.reasonText ? { rawMessage: scrubText(o.reasonText) } : {}) };
}

export interface Summary {
  transId: string;
  invoiceNumber: string | undefined;
}

/** A list the look-up relies on: a shape we cannot read must never pass for "no transaction". */
function listOf(value: unknown, what: string): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatewayError('unknown', `Authorize.Net answered a ${what} list we cannot read`);
  return value as Record<string, unknown>[];
}

// I00004 "No records found": an empty list, whatever the resultCode beside it.
const noRecords = (res: ApiResponse) => res.messages?.message?.[0]?.code === 'I00004';

/** One page of a transaction list, with the list's total when Authorize.Net gives it (totalNumInResultSet). */
export function transactionsOf(res: ApiResponse): { rows: Summary[]; total: number | undefined } {
  if (noRecords(res)) return { rows: [], total: 0 };
  const rows = listOf(checkOk(res).transactions, 'transaction').map((t) => ({ transId: text(t.transId) ?? '', invoiceNumber: text(t.invoiceNumber) }));
  return { rows, total: typeof res.totalNumInResultSet === 'number' ? res.totalNumInResultSet : undefined };
}

export function batchIdsOf(res: ApiResponse): string[] {
  if (noRecords(res)) return [];
  return listOf(checkOk(res).batchList, 'batch').map((b) => text(b.batchId) ?? '').filter((id) => id !== '');
}

export function detailsOf(res: ApiResponse): TransactionDetails {
  const tx = checkOk(res).transaction;
  if (!tx) throw new GatewayError('unknown', 'Authorize.Net answered transaction details without the transaction');
  return tx;
}

/** The last four digits of a masked card number ("XXXX1111"), for a refund. */
export function lastFourOf(tx: TransactionDetails): string | undefined {
  return /(\d{4})$/.exec(tx.payment?.creditCard?.cardNumber ?? '')?.[1];
}
