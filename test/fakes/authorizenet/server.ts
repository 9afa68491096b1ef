// A local Authorize.Net for tests, written from the API reference
// (developer.authorize.net/api/reference: createTransactionRequest with authCaptureTransaction,
// refundTransaction and voidTransaction; getUnsettledTransactionListRequest,
// getSettledBatchListRequest, getTransactionListRequest, getTransactionDetailsRequest;
// authenticateTestRequest), its schema (AnetApiSchema.xsd) and its response codes
// (responseCodes.json). As the real one: one endpoint, answers after a UTF-8 byte-order mark,
// HTTP 200 with messages.resultCode Ok|Error; elements out of the schema's order are a parse
// error (E00003); a charge with the same invoiceNumber and amount within the duplicateWindow
// is refused as reason 11 naming the original; refunds need a settled charge (reason 54), the
// card's last four and "XXXX". There is no idempotency header to check: the API has none.
// Served over HTTP, or HTTPS with a given certificate.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export type AuthorizeNetBehaviour =
  | { kind: 'approve'; networkTransactionId?: string }
  | { kind: 'decline'; reasonCode: string } // responseCode 2
  | { kind: 'error'; reasonCode: string } // responseCode 3 (117: the 3-D Secure value refused)
  | { kind: 'held'; reasonCode: '252' | '253' } // responseCode 4, held for review
  | { kind: 'api_error'; code: string } // resultCode Error, no transaction (E00001, …)
  | { kind: 'status'; status: 429 | 500 | 503 }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** Latency, the scenario's: answers (approving) `ms` after the call arrived. */
  | { kind: 'delay'; ms: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The body's root key: the API method called. */
  api: string;
}

/** What the fake reads of a request (AnetApiSchema.xsd names). */
interface TxRequest {
  transactionType?: string; amount?: string; currencyCode?: string; refTransId?: string;
  payment?: { creditCard?: { cardNumber?: string; expirationDate?: string } };
  profile?: { paymentProfile?: { paymentProfileId?: string } };
  order?: { invoiceNumber?: string };
  transactionSettings?: { setting?: { settingName?: string; settingValue?: string }[] };
}
interface ApiRequest {
  merchantAuthentication?: { name?: string; transactionKey?: string };
  refId?: string; transactionRequest?: TxRequest; paging?: { limit?: number; offset?: number };
  firstSettlementDate?: string; lastSettlementDate?: string; batchId?: string; transId?: string;
}

interface Txn {
  transId: string; type: string; invoiceNumber: string | undefined; amount: string; responseCode: string; reasonCode: string;
  networkTransId?: string; last4: string; status: string; submitTimeUTC: string; batchId?: string; refunded: number;
}

export interface AuthorizeNetFake {
  url: string;
  apiLoginId: string;
  transactionKey: string;
  requests: RecordedRequest[];
  /** Approved charges not voided, by transId: the money actually taken. */
  charges: Map<string, { amount: string; invoiceNumber: string | undefined }>;
  /** Behaviours for the next authCaptureTransaction calls, in order; then `fallback`. */
  script(...next: AuthorizeNetBehaviour[]): void;
  fallback(b: AuthorizeNetBehaviour): void;
  /** Closes a batch: every unsettled transaction settles in it. Returns the batchId. */
  settle(): string;
  close(): Promise<void>;
}

const DECLINED = 'This transaction has been declined.';
const RECEIVED = 'Your order has been received. Thank you for your business!';
const TEXT: Record<string, string> = {
  '1': 'This transaction has been approved.', '2': DECLINED, '4': 'The code returned from the processor indicating that the card used needs to be picked up.', '6': 'The credit card number is invalid.',
  '8': 'The credit card has expired.', '11': 'A duplicate transaction has been submitted.', '16': 'The transaction cannot be found.', '39': 'The supplied currency code is either invalid, not supported, not allowed for this merchant or doesnt have an exchange rate.',
  '44': DECLINED, '54': 'The referenced transaction does not meet the criteria for issuing a credit.', '55': 'The sum of credits against the referenced transaction would exceed original debit amount.',
  '117': 'The cardholder authentication value is invalid.', '252': RECEIVED, '253': RECEIVED, '310': 'This transaction has already been voided.',
};

// The schema's order of every element the fake reads (AnetApiSchema.xsd).
const ORDER: Record<string, string[]> = {
  merchantAuthentication: ['name', 'transactionKey'],
  createTransactionRequest: ['merchantAuthentication', 'clientId', 'refId', 'transactionRequest'],
  transactionRequest: ['transactionType', 'amount', 'currencyCode', 'payment', 'profile', 'solution', 'callId', 'terminalNumber', 'authCode', 'refTransId', 'splitTenderId', 'order', 'lineItems', 'tax', 'duty', 'shipping', 'taxExempt', 'poNumber', 'customer', 'billTo', 'shipTo', 'customerIP', 'cardholderAuthentication', 'retail', 'employeeId', 'transactionSettings', 'userFields', 'surcharge', 'merchantDescriptor', 'subMerchant', 'tip', 'processingOptions', 'subsequentAuthInformation', 'otherTax', 'shipFrom', 'authorizationIndicatorType'],
  payment: ['creditCard', 'bankAccount', 'trackData', 'encryptedTrackData', 'payPal', 'opaqueData', 'emv', 'dataSource'],
  creditCard: ['cardNumber', 'expirationDate', 'cardCode', 'isPaymentToken', 'cryptogram'],
  profile: ['createProfile', 'customerProfileId', 'paymentProfile', 'shippingProfileId'],
  paymentProfile: ['paymentProfileId', 'cardCode'],
  order: ['invoiceNumber', 'description'],
  cardholderAuthentication: ['authenticationIndicator', 'cardholderAuthenticationValue'],
  transactionSettings: ['setting'],
  setting: ['settingName', 'settingValue'],
  processingOptions: ['isFirstRecurringPayment', 'isFirstSubsequentAuth', 'isSubsequentAuth', 'isStoredCredentials'],
  subsequentAuthInformation: ['originalNetworkTransId', 'originalAuthAmount', 'reason'],
  getUnsettledTransactionListRequest: ['merchantAuthentication', 'clientId', 'refId', 'status', 'sorting', 'paging'],
  getSettledBatchListRequest: ['merchantAuthentication', 'clientId', 'refId', 'includeStatistics', 'firstSettlementDate', 'lastSettlementDate'],
  getTransactionListRequest: ['merchantAuthentication', 'clientId', 'refId', 'batchId', 'sorting', 'paging'],
  getTransactionDetailsRequest: ['merchantAuthentication', 'clientId', 'refId', 'transId'],
  authenticateTestRequest: ['merchantAuthentication', 'clientId', 'refId'],
  sorting: ['orderBy', 'orderDescending'],
  paging: ['limit', 'offset'],
};

/** The first element out of the schema's order or unknown to it, as E00003 words it. */
function orderError(name: string, value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map((v) => orderError(name, v)).find(Boolean);
  if (typeof value !== 'object' || value === null) return undefined;
  const allowed = ORDER[name];
  let last = -1;
  for (const [key, child] of Object.entries(value)) {
    const at = allowed ? allowed.indexOf(key) : 0;
    if (at < last || at === -1) return `The element '${name}' has invalid child element '${key}'.`;
    last = at;
    const inner = orderError(key, child);
    if (inner) return inner;
  }
  return undefined;
}

const LIMITS: [RegExp, number][] = [[/"refId":"([^"]*)"/, 20], [/"invoiceNumber":"([^"]*)"/, 20], [/"description":"([^"]*)"/, 255]];

let counter = 60_000_000_000;
const nextId = () => String(++counter);

/** maxPageSize: rows per page of a list, whatever the request's paging.limit asks (a server that caps it). */
export async function startAuthorizeNetFake(opts: { apiLoginId?: string; transactionKey?: string; tls?: { cert: string; key: string }; maxPageSize?: number } = {}): Promise<AuthorizeNetFake> {
  const apiLoginId = opts.apiLoginId ?? '5KP3u95bQpv';
  const transactionKey = opts.transactionKey ?? '346HZ32z3fP4hTG2';
  const requests: RecordedRequest[] = [];
  const charges: AuthorizeNetFake['charges'] = new Map();
  const txns = new Map<string, Txn>();
  const batches: { batchId: string; settlementTimeUTC: string }[] = [];
  const queue: AuthorizeNetBehaviour[] = [];
  let fallback: AuthorizeNetBehaviour = { kind: 'approve' };

  const answer = (res: ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(`\uFEFF${JSON.stringify(body)}`);
  };
  const messages = (resultCode: 'Ok' | 'Error', code: string, text: string) => ({ resultCode, message: [{ code, text }] });
  const ok = (res: ServerResponse, body: Record<string, unknown> = {}) => answer(res, { ...body, messages: messages('Ok', 'I00001', 'Successful.') });
  const fail = (res: ServerResponse, code: string, text: string) => answer(res, { messages: messages('Error', code, text) });
  const noRecords = (res: ServerResponse) => answer(res, { messages: messages('Ok', 'I00004', 'No records found.') });

  /** A createTransactionResponse for responseCode rc and reason code; the refId echoed. */
  function transactionAnswer(res: ServerResponse, refId: unknown, rc: string, reason: string, t?: Txn): void {
    const approved = rc === '1' || rc === '4';
    const transactionResponse = {
      responseCode: rc, authCode: approved ? 'A1B2C3' : '', avsResultCode: 'Y', cvvResultCode: 'P', cavvResultCode: '', transId: t?.transId ?? '0', refTransID: '', transHash: '', testRequest: '0',
      accountNumber: t ? `XXXX${t.last4}` : '', accountType: 'Visa',
      ...(approved ? { messages: [{ code: reason, description: TEXT[reason] ?? '' }] } : { errors: [{ errorCode: reason, errorText: TEXT[reason] ?? 'An error occurred during processing. Please try again.' }] }),
      transHashSha2: '', ...(t?.networkTransId && rc === '1' ? { networkTransId: t.networkTransId } : {}),
    };
    const top = approved ? messages('Ok', 'I00001', 'Successful.') : messages('Error', 'E00027', 'The transaction was unsuccessful.');
    answer(res, { transactionResponse, ...(refId ? { refId } : {}), messages: top });
  }

  function record(tr: TxRequest, rc: string, reason: string, last4: string, status: string, networkTransId?: string): Txn {
    const transId = nextId();
    const t: Txn = {
      transId, type: tr.transactionType ?? '', invoiceNumber: tr.order?.invoiceNumber, amount: String(tr.amount), responseCode: rc, reasonCode: reason, last4, status,
      submitTimeUTC: new Date().toISOString(), refunded: 0, ...(rc === '1' && tr.transactionType === 'authCaptureTransaction' ? { networkTransId: networkTransId || `ntid${transId}` } : {}),
    };
    txns.set(t.transId, t);
    if (rc === '1' && t.type === 'authCaptureTransaction') charges.set(t.transId, { amount: t.amount, invoiceNumber: t.invoiceNumber });
    return t;
  }

  function charge(res: ServerResponse, refId: unknown, tr: TxRequest, b: AuthorizeNetBehaviour): void {
    const card = tr.payment?.creditCard;
    if (!(/^\d+\.\d{2}$/.test(String(tr.amount))) || (!card && !tr.profile?.paymentProfile?.paymentProfileId)) return fail(res, 'E00014', 'A required field is not present.');
    if (card && (!/^\d{13,16}$/.test(card.cardNumber ?? '') || !/^\d{4}-\d{2}$/.test(card.expirationDate ?? ''))) return transactionAnswer(res, refId, '3', '6');
    if (tr.currencyCode !== undefined && tr.currencyCode !== 'USD') return transactionAnswer(res, refId, '3', '39');
    const window = Number(tr.transactionSettings?.setting?.find((s) => s.settingName === 'duplicateWindow')?.settingValue ?? 120);
    const first = [...txns.values()].find((t) => t.type === tr.transactionType && t.invoiceNumber === tr.order?.invoiceNumber && t.amount === String(tr.amount) && Date.now() - Date.parse(t.submitTimeUTC) < window * 1000);
    if (first && window > 0) return transactionAnswer(res, refId, '3', '11', first);
    const last4 = card ? String(card.cardNumber).slice(-4) : '0027';
    if (b.kind === 'decline') return transactionAnswer(res, refId, '2', b.reasonCode, record(tr, '2', b.reasonCode, last4, 'declined'));
    if (b.kind === 'error') return transactionAnswer(res, refId, '3', b.reasonCode, record(tr, '3', b.reasonCode, last4, 'generalError'));
    if (b.kind === 'held') return transactionAnswer(res, refId, '4', b.reasonCode, record(tr, '4', b.reasonCode, last4, 'FDSPendingReview'));
    const t = record(tr, '1', '1', last4, 'capturedPendingSettlement', b.kind === 'approve' ? b.networkTransactionId : undefined);
    if (b.kind === 'reset_after_charge') return void res.socket?.destroy();
    transactionAnswer(res, refId, '1', '1', t);
  }

  function refund(res: ServerResponse, refId: unknown, tr: TxRequest): void {
    const original = txns.get(tr.refTransId ?? '');
    const card = tr.payment?.creditCard;
    if (!original || original.responseCode !== '1') return transactionAnswer(res, refId, '3', '16');
    if (!original.batchId) return transactionAnswer(res, refId, '3', '54');
    if (card?.cardNumber !== original.last4 || card?.expirationDate !== 'XXXX') return transactionAnswer(res, refId, '3', '6');
    if (original.refunded + Number(tr.amount) > Number(original.amount)) return transactionAnswer(res, refId, '3', '55');
    original.refunded += Number(tr.amount);
    transactionAnswer(res, refId, '1', '1', record(tr, '1', '1', original.last4, 'refundPendingSettlement'));
  }

  function voidTxn(res: ServerResponse, refId: unknown, tr: TxRequest): void {
    const original = txns.get(tr.refTransId ?? '');
    if (!original || original.batchId) return transactionAnswer(res, refId, '3', '16');
    if (original.status === 'voided') return transactionAnswer(res, refId, '3', '310', original);
    original.status = 'voided';
    charges.delete(original.transId);
    transactionAnswer(res, refId, '1', '1', original);
  }

  const summary = (t: Txn) => ({ transId: t.transId, submitTimeUTC: t.submitTimeUTC, submitTimeLocal: t.submitTimeUTC, transactionStatus: t.status, ...(t.invoiceNumber ? { invoiceNumber: t.invoiceNumber } : {}), accountType: 'Visa', accountNumber: `XXXX${t.last4}`, settleAmount: Number(t.amount), marketType: 'eCommerce', product: 'Card Not Present' });
  function page(res: ServerResponse, list: Txn[], paging: { limit?: number; offset?: number } | undefined): void {
    const limit = Math.min(Number(paging?.limit ?? 1000), opts.maxPageSize ?? 1000);
    const rows = list.sort((a, b) => b.submitTimeUTC.localeCompare(a.submitTimeUTC)).slice((Number(paging?.offset ?? 1) - 1) * limit, Number(paging?.offset ?? 1) * limit);
    if (list.length === 0) return noRecords(res);
    ok(res, { transactions: rows.map(summary), totalNumInResultSet: list.length });
  }

  function details(res: ServerResponse, transId: string): void {
    const t = txns.get(transId);
    if (!t) return fail(res, 'E00040', 'The record cannot be found.');
    ok(res, { transaction: {
      transId: t.transId, submitTimeUTC: t.submitTimeUTC, submitTimeLocal: t.submitTimeUTC, transactionType: t.type, transactionStatus: t.status,
      responseCode: Number(t.responseCode), responseReasonCode: Number(t.reasonCode), responseReasonDescription: TEXT[t.reasonCode] ?? '',
      ...(t.batchId ? { batch: { batchId: t.batchId } } : {}), order: { ...(t.invoiceNumber ? { invoiceNumber: t.invoiceNumber } : {}) },
      authAmount: Number(t.amount), settleAmount: Number(t.amount), payment: { creditCard: { cardNumber: `XXXX${t.last4}`, expirationDate: 'XXXX', cardType: 'Visa' } },
      ...(t.networkTransId ? { networkTransId: t.networkTransId } : {}),
    } });
  }

  function route(req: RecordedRequest, res: ServerResponse): void {
    const body = req.body[req.api] as ApiRequest;
    const tr = body.transactionRequest;
    if (req.api === 'createTransactionRequest' && tr?.transactionType === 'authCaptureTransaction') {
      const b = queue.shift() ?? fallback;
      if (b.kind === 'timeout') return; // never answers
      if (b.kind === 'reset') return void res.socket?.destroy();
      if (b.kind === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('\uFEFF{"transactionResponse": {"respon');
      if (b.kind === 'status') return void res.writeHead(b.status, { 'content-type': 'text/html' }).end(`<html><body>${b.status}</body></html>`);
      if (b.kind === 'api_error') return fail(res, b.code, 'scripted');
      if (b.kind === 'delay') return void setTimeout(() => charge(res, body.refId, tr, { kind: 'approve' }), b.ms);
      return charge(res, body.refId, tr, b);
    }
    if (tr?.transactionType === 'refundTransaction') return refund(res, body.refId, tr);
    if (tr?.transactionType === 'voidTransaction') return voidTxn(res, body.refId, tr);
    if (req.api === 'getUnsettledTransactionListRequest') return page(res, [...txns.values()].filter((t) => !t.batchId), body.paging);
    if (req.api === 'getSettledBatchListRequest') {
      const [from, to] = [Date.parse(body.firstSettlementDate ?? ''), Date.parse(body.lastSettlementDate ?? '') + 999];
      const inRange = batches.filter((b) => Date.parse(b.settlementTimeUTC) >= from && Date.parse(b.settlementTimeUTC) <= to);
      if (inRange.length === 0) return noRecords(res);
      return ok(res, { batchList: inRange.map((b) => ({ ...b, settlementTimeLocal: b.settlementTimeUTC, settlementState: 'settledSuccessfully', paymentMethod: 'creditCard' })) });
    }
    if (req.api === 'getTransactionListRequest') return page(res, [...txns.values()].filter((t) => t.batchId === body.batchId), body.paging);
    if (req.api === 'getTransactionDetailsRequest') return details(res, String(body.transId));
    if (req.api === 'authenticateTestRequest') return ok(res);
    fail(res, 'E00004', 'The name of the requested API method is invalid.');
  }

  const handler: RequestListener = (req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return fail(res, 'E00003', 'An error occurred while parsing the request.');
      }
      const api = Object.keys(body)[0] ?? '';
      requests.push({ method: req.method ?? 'POST', path: req.url ?? '/', headers: req.headers, body, api });
      if (req.method !== 'POST' || req.url !== '/xml/v1/request.api') return answer(res, { error: 'not found' }, 404);
      const inner = body[api] as ApiRequest | undefined;
      const auth = inner?.merchantAuthentication;
      if (auth?.name !== apiLoginId || auth?.transactionKey !== transactionKey) return fail(res, 'E00007', 'User authentication failed due to invalid authentication values.');
      const misplaced = orderError(api, inner);
      if (misplaced) return fail(res, 'E00003', misplaced);
      const tooLong = LIMITS.find(([re, max]) => (re.exec(text)?.[1]?.length ?? 0) > max);
      if (tooLong) return fail(res, 'E00003', `The element is invalid - its length exceeds ${tooLong[1]}.`);
      route(requests.at(-1)!, res);
    });
  };
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    apiLoginId,
    transactionKey,
    requests,
    charges,
    script: (...next) => void queue.push(...next),
    fallback: (b) => void (fallback = b),
    settle() {
      const batch = { batchId: nextId(), settlementTimeUTC: new Date().toISOString() };
      batches.push(batch);
      const settled: Record<string, string> = { capturedPendingSettlement: 'settledSuccessfully', refundPendingSettlement: 'refundSettledSuccessfully' };
      for (const t of txns.values()) if (!t.batchId) Object.assign(t, { batchId: batch.batchId, status: settled[t.status] ?? t.status });
      return batch.batchId;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
