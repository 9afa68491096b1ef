// Authorize.Net through its JSON API (one endpoint, the method named by the body's root key),
// with a small client of our own. The official Node SDK (`authorizenet` 1.0.10,
// AuthorizeNet/sdk-node) does not fit and is unmaintained where it matters: callbacks only, no
// typings, and on a network error it never calls back at all (lib/apicontrollersbase.js
// execute(): the catch only logs), a bug reported with a fix in 2018 (PR #43) and again in
// 2026 (issue #104), both still open — when a failed call is exactly what a connector must
// classify.
// The client is node:http(s) rather than fetch: fetch cannot trust an extra CA per call
// without undici's Agent, which is not a dependency, and opts.ca must be trusted for a fake
// served over TLS.
//
// No idempotency key (`idempotent: false`): each attempt's key becomes a 20-character
// invoiceNumber (request.ts), and `lookup` finds the charge by it in the unsettled list and in
// the batches settled within SETTLED_LOOKBACK_DAYS, and says null only when every list was
// read to its end without it. The duplicate window (request.ts) is a second net: the same
// attempt sent again within 8 h is refused as reason 11 naming the original transaction, whose
// result is then answered. A connector is a translation: when to look up is the engine's.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { getCACertificates } from 'node:tls';
import { postOnce, PostFailure, type PostAnswer } from '../post-once.ts';
import { GatewayError, type ChargeRequest, type Connector, type ConnectorOptions, type GatewayAnswer, type RefundCall } from '../connector.ts';
import {
  batchIdsOf, chargeOutcome, checkOk, detailsOf, followUpAnswer, fromOutcome, judgesCard, lastFourOf, outcomeOfDetails, parseBody, transactionsOf,
  type ApiResponse, type Outcome,
} from './answer.ts';
import type { AuthorizeNetCredentials } from './credentials.ts';
import {
  authenticateTestRequest, batchTransactionsRequest, chargeRequest, detailsRequest, gatewayIdFor, PAGE_SIZE, refundRequest, settledBatchesRequest, unsettledRequest, voidRequest,
  type MerchantAuthentication,
} from './request.ts';

// API reference, "API Endpoints & Authentication".
const ENDPOINTS = {
  production: 'https://api.authorize.net/xml/v1/request.api',
  sandbox: 'https://apitest.authorize.net/xml/v1/request.api',
} as const;

/**
 * Settlement runs once a day at the account's cut-off time, so a charge settles within about a
 * day; an unknown attempt is looked up within processor.reconcileTimeoutMs (default 24 h).
 * Three days of settled batches cover both with a day to spare.
 */
export const SETTLED_LOOKBACK_DAYS = 3;
/** Pages of PAGE_SIZE read per list before the look-up gives up as incomplete (unknown). */
const MAX_PAGES = 50;
/** The largest answer read: a full page of 1000 summaries is well under 1 MiB. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

// The call never left: no connection, no address, or a TLS handshake that failed before the
// request was written.
const NOT_SENT = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** opts.baseUrl replaces the endpoint: taken as is when it names the .api file, else the path is added. */
function endpointOf(credentials: AuthorizeNetCredentials, opts: ConnectorOptions): URL {
  if (!opts.baseUrl) return new URL(ENDPOINTS[credentials.environment]);
  const base = new URL(opts.baseUrl);
  return base.pathname.endsWith('.api') ? base : new URL('xml/v1/request.api', base.href.endsWith('/') ? base.href : `${base.href}/`);
}

/** A transport failure, never with the request body in it. */
function transportError(err: unknown, timeoutMs: number): GatewayError {
  const e = err as { name?: string; code?: string };
  if (e.name === 'AbortError' || e.name === 'TimeoutError' || e.code === 'ABORT_ERR') return new GatewayError('unknown', `Authorize.Net did not answer within ${timeoutMs} ms`, { cause: err });
  if (e.code && NOT_SENT.has(e.code)) return new GatewayError('not_sent', `Authorize.Net could not be reached (${e.code})`, { cause: err });
  return new GatewayError('unknown', `the connection to Authorize.Net failed (${e.code ?? 'no complete answer'})`, { cause: err });
}

/** One POST; resolves with the status and the whole body, or rejects with a GatewayError. */
async function send(url: URL, agent: HttpAgent, body: string, timeoutMs: number): Promise<PostAnswer> {
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) };
  try {
    return await postOnce(url, body, { headers, timeoutMs, maxAnswerBytes: MAX_ANSWER_BYTES, agent });
  } catch (err) {
    throw transportError(err instanceof PostFailure ? err.cause : err, timeoutMs);
  }
}

/** Approved first, then held, then declined: what a look-up reports when a key has several transactions. */
const RANK: Record<string, number> = { '1': 0, '4': 1, '2': 2, '3': 3 };

export function createAuthorizeNetConnector(credentials: AuthorizeNetCredentials, opts: ConnectorOptions): Connector {
  const url = endpointOf(credentials, opts);
  const auth: MerchantAuthentication = { name: credentials.apiLoginId, transactionKey: credentials.transactionKey };
  // A new connection per call: a kept-alive socket the far end has closed fails as a reset,
  // which would make a call that never left look like an unknown outcome. opts.ca is trusted
  // on top of the process's default CAs, not instead of them.
  const agent = url.protocol === 'https:'
    ? new HttpsAgent({ keepAlive: false, ...(opts.ca ? { ca: [...getCACertificates('default'), opts.ca] } : {}) })
    : new HttpAgent({ keepAlive: false });

  async function call(body: Record<string, unknown>): Promise<ApiResponse> {
    const { status, text } = await send(url, agent, JSON.stringify(body), opts.timeoutMs);
    if (status === 429) throw new GatewayError('rejected', 'Authorize.Net is rate limiting the account (HTTP 429)', { status });
    if (status >= 500) throw new GatewayError('unknown', `Authorize.Net answered HTTP ${status}`, { status });
    if (status >= 400) throw new GatewayError('rejected', `Authorize.Net refused the call (HTTP ${status})`, { status });
    if (status !== 200) throw new GatewayError('unknown', `Authorize.Net answered HTTP ${status}`, { status });
    return parseBody(text);
  }

  const details = async (transId: string) => detailsOf(await call(detailsRequest(auth, transId)));

  async function authorize(req: ChargeRequest): Promise<GatewayAnswer> {
    const invoice = gatewayIdFor(req.idempotencyKey);
    const outcome = chargeOutcome(await call(chargeRequest(auth, req)), invoice);
    if (outcome.responseCode === '3' && outcome.reasonCode === '11' && outcome.transId !== invoice) {
      // This very attempt reached Authorize.Net before: its first transaction is the answer.
      const first = await details(outcome.transId);
      if (first.order?.invoiceNumber === invoice) return fromOutcome(outcomeOfDetails(first, outcome.transId));
    }
    return fromOutcome(outcome);
  }

  async function refund(req: RefundCall): Promise<GatewayAnswer> {
    const last4 = req.last4 && /^\d{4}$/.test(req.last4) ? req.last4 : lastFourOf(await details(req.processorRef));
    if (!last4) throw new GatewayError('rejected', 'the last four digits of the charge\'s card could not be read for the refund', { code: 'last4_missing' });
    return followUpAnswer(await call(refundRequest(auth, req, last4)), gatewayIdFor(req.idempotencyKey), '05');
  }

  async function cancel(req: Omit<RefundCall, 'amount'>): Promise<GatewayAnswer> {
    return followUpAnswer(await call(voidRequest(auth, req)), req.processorRef, '12', '310');
  }

  /**
   * The transIds with this invoiceNumber in a paged list, read to its last page: to the total
   * the list announces, else to a short page. A list that ends before its total is unreadable.
   */
  async function matches(page: (n: number) => Record<string, unknown>, invoice: string): Promise<string[]> {
    const found: string[] = [];
    let seen = 0;
    for (let n = 1; n <= MAX_PAGES; n++) {
      const { rows, total } = transactionsOf(await call(page(n)));
      seen += rows.length;
      found.push(...rows.filter((t) => t.invoiceNumber === invoice).map((t) => t.transId));
      if (total !== undefined ? seen >= total : rows.length < PAGE_SIZE) return found;
      if (rows.length === 0) throw new GatewayError('unknown', 'an Authorize.Net transaction list ended before its announced total');
    }
    throw new GatewayError('unknown', `more than ${MAX_PAGES * PAGE_SIZE} transactions in one list: the look-up cannot be complete`);
  }

  async function settledMatches(invoice: string): Promise<string[]> {
    const now = new Date();
    const from = new Date(now.getTime() - SETTLED_LOOKBACK_DAYS * 86_400_000);
    const found: string[] = [];
    for (const batchId of batchIdsOf(await call(settledBatchesRequest(auth, from, now)))) {
      found.push(...(await matches((n) => batchTransactionsRequest(auth, batchId, n), invoice)));
    }
    return found;
  }

  async function lookup(req: { idempotencyKey: string }): Promise<GatewayAnswer | null> {
    const invoice = gatewayIdFor(req.idempotencyKey);
    const ids = new Set([...(await matches((n) => unsettledRequest(auth, n), invoice)), ...(await settledMatches(invoice))]);
    const outcomes: Outcome[] = [];
    for (const id of ids) {
      const tx = await details(id);
      if (tx.order?.invoiceNumber === invoice) outcomes.push(outcomeOfDetails(tx, id));
    }
    // A transaction refused without judging the card charged nothing: as if never sent.
    const best = outcomes.filter(judgesCard).sort((a, b) => (RANK[a.responseCode] ?? 9) - (RANK[b.responseCode] ?? 9))[0];
    return best ? fromOutcome(best) : null;
  }

  /**
   * authenticateTestRequest proves the credentials; one row of the unsettled list proves the
   * Transaction Details API is on for the account, without which no unknown outcome could be
   * reconciled. Nothing is charged.
   */
  async function test(): Promise<string> {
    checkOk(await call(authenticateTestRequest(auth)));
    transactionsOf(await call(unsettledRequest(auth, 1, 1)));
    return `Authorize.Net accepted the API Login ID and Transaction Key (${credentials.environment}) and answered a transaction list (the look-up works)`;
  }

  return { type: 'authorizenet', idempotent: false, acceptsCards: true, authorize, refund, void: cancel, lookup, test };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createAuthorizeNetConnector;
