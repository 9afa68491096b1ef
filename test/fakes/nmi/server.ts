// A local NMI for tests, written from NMI's published references: the Payment API
// (POST /api/transact.php, form-encoded request and answer: "Transaction Variables",
// "Transaction Response Variables", "Result Code Table", "Rate Limits") and the Query API
// (POST /api/query.php answering `<nm_response>` XML, https://docs.nmi.com/reference/query-1).
// It checks the security key (a wrong one is answered as NMI does: response=3
// "Authentication Failed", or `<error_response>` on the Query API), the required variables
// and the allowed values of the stored-credential and 3-D Secure variables. NMI has no
// idempotency key, so there is no header to check: every sale is a new transaction, and the
// Query API finds them by `order_id`, including a sale whose connection was reset after it
// charged. Every request is recorded; sales answer as scripted. Plain HTTP by default, or
// HTTPS with a given certificate.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export type NmiBehaviour =
  | { kind: 'approve' }
  | { kind: 'decline'; code: string; text?: string; adviceCode?: string }
  /** A decline whose text says the issuer wants the cardholder authenticated (no result code of its own at NMI). */
  | { kind: 'authentication_required' }
  /** response=3 with this result code: 300 gateway rejection, 301 rate limit, 410 configuration, 420 communication… */
  | { kind: 'error'; code: string; text: string }
  | { kind: 'status'; status: 429 | 500 | 503 | 403 }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** Latency, the scenario's: answers the request `ms` after it arrived (a sale: approved). */
  | { kind: 'delay'; ms: number }
  /** Holds the request unanswered until `released()` (asked once per request) settles, then answers it. */
  | { kind: 'hold'; released: () => Promise<unknown> };

/** A behaviour for the next sale, or with `at: 'query'` for the next Query API call. */
export type Scripted = NmiBehaviour & { at?: 'sale' | 'query' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, string>;
  rawUrl: string;
}

interface Txn {
  id: string;
  orderid: string;
  condition: 'pendingsettlement' | 'failed' | 'canceled';
  actions: { type: string; amount: string; success: boolean; code: string; text: string }[];
}

export interface NmiFake {
  url: string;
  key: string;
  requests: RecordedRequest[];
  /** Sales that were approved and not voided, by transaction id: the money actually taken. */
  charges: Map<string, { amount: string; currency: string; orderid: string; refunded: string[] }>;
  script(...next: Scripted[]): void;
  fallback(b: NmiBehaviour): void;
  close(): Promise<void>;
}

const VALUES: Record<string, RegExp> = {
  amount: /^\d+(\.\d{1,3})?$/, currency: /^[A-Z]{3}$/, ccnumber: /^\d{12,19}$/, ccexp: /^(0[1-9]|1[0-2])\d\d$/, cvv: /^\d{3,4}$/,
  initiated_by: /^(customer|merchant)$/, stored_credential_indicator: /^(stored|used)$/, billing_method: /^(recurring|installment)$/,
  cardholder_auth: /^(verified|attempted)$/, eci: /^0[0-7]$/, three_ds_version: /^[12]\.\d\.\d$/, directory_server_id: /^[0-9a-f-]{36}$/i,
};

let next = 9_000_000_000 + Math.floor(Math.random() * 100_000_000);
const txnId = () => String(++next);
const refId = () => `REFID:${Math.floor(Math.random() * 1e9)}`;
const xml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** NMI's answer: every standard response variable, in its order, empty when it has none. */
function answer(res: ServerResponse, f: { response: string; text: string; code: string; id?: string; orderid?: string; type?: string; authcode?: string; mac?: string }): void {
  const fields = new URLSearchParams({
    response: f.response, responsetext: f.text, authcode: f.authcode ?? '', transactionid: f.id ?? '', avsresponse: '', cvvresponse: '',
    orderid: f.orderid ?? '', type: f.type ?? '', response_code: f.code, ...(f.mac ? { merchant_advice_code: f.mac } : {}),
  });
  res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' }).end(fields.toString());
}

/** What NMI would refuse in a sale's variables, or undefined. */
function invalidSale(b: Record<string, string>): string | undefined {
  for (const [name, re] of Object.entries(VALUES)) if (b[name] !== undefined && !re.test(b[name])) return `Invalid ${name}`;
  if (b.amount === undefined) return 'Invalid amount';
  const card = b.ccnumber !== undefined || b.ccexp !== undefined;
  if (card === (b.customer_vault_id !== undefined)) return 'Invalid payment information: ccnumber and ccexp, or customer_vault_id';
  if (card && (b.ccnumber === undefined || b.ccexp === undefined)) return 'Invalid Credit Card Number or expiration';
  if (b.cardholder_auth !== undefined && b.cavv === undefined) return '3D Secure requires cavv';
  return undefined;
}

export async function startNmiFake(opts: { key?: string; tls?: { cert: string; key: string } } = {}): Promise<NmiFake> {
  const key = opts.key ?? 'Fak3NmiSecurityKey0123456789abcd';
  const requests: RecordedRequest[] = [];
  const charges: NmiFake['charges'] = new Map();
  const txns = new Map<string, Txn>();
  const queue: Scripted[] = [];
  let fallback: NmiBehaviour = { kind: 'approve' };

  const take = (at: 'sale' | 'query'): NmiBehaviour | undefined => {
    const i = queue.findIndex((b) => (b.at ?? 'sale') === at);
    return i === -1 ? undefined : queue.splice(i, 1)[0];
  };

  function sale(req: RecordedRequest, res: ServerResponse, b: NmiBehaviour): void {
    const body = req.body;
    const bad = invalidSale(body);
    if (bad) return answer(res, { response: '3', text: `${bad} ${refId()}`, code: '300', orderid: body.orderid, type: 'sale' });
    const id = txnId();
    const orderid = body.orderid ?? id; // "orderid: … This defaults to gateway transaction id."
    const approved = b.kind === 'approve' || b.kind === 'reset_after_charge';
    const [response, code, text] = approved ? ['1', '100', 'SUCCESS']
      : b.kind === 'decline' ? ['2', b.code, b.text ?? 'DECLINE']
      : b.kind === 'authentication_required' ? ['2', '260', 'Additional customer authentication required']
      : b.kind === 'error' ? ['3', b.code, `${b.text} ${refId()}`] : ['3', '300', 'unscripted'];
    txns.set(id, { id, orderid, condition: approved ? 'pendingsettlement' : 'failed', actions: [{ type: 'sale', amount: body.amount!, success: approved, code, text }] });
    if (approved) charges.set(id, { amount: body.amount!, currency: body.currency ?? 'USD', orderid, refunded: [] });
    if (b.kind === 'reset_after_charge') return void res.socket?.destroy();
    answer(res, { response, text, code, id, orderid, type: 'sale', ...(approved ? { authcode: '123456' } : {}), ...(b.kind === 'decline' && b.adviceCode ? { mac: b.adviceCode } : {}) });
  }

  function refundOrVoid(req: RecordedRequest, res: ServerResponse): void {
    const { type, transactionid, amount } = req.body;
    const t = transactionid ? txns.get(transactionid) : undefined;
    const charge = transactionid ? charges.get(transactionid) : undefined;
    if (!t || !charge) return answer(res, { response: '3', text: `Transaction not found ${refId()}`, code: '300', type });
    if (type === 'void') {
      charges.delete(t.id);
      t.condition = 'canceled';
      t.actions.push({ type: 'void', amount: charge.amount, success: true, code: '100', text: 'Transaction Void Successful' });
      return answer(res, { response: '1', text: 'Transaction Void Successful', code: '100', id: t.id, orderid: t.orderid, type });
    }
    const left = Number(charge.amount) - charge.refunded.reduce((s, r) => s + Number(r), 0);
    if (amount !== undefined && (!VALUES.amount!.test(amount) || Number(amount) > left + 1e-9)) return answer(res, { response: '3', text: `Refund amount may not exceed the transaction balance ${refId()}`, code: '300', type });
    charge.refunded.push(amount ?? String(left));
    const id = txnId();
    txns.set(id, { id, orderid: t.orderid, condition: 'pendingsettlement', actions: [{ type: 'refund', amount: amount ?? String(left), success: true, code: '100', text: 'SUCCESS' }] });
    answer(res, { response: '1', text: 'SUCCESS', code: '100', id, orderid: t.orderid, type });
  }

  function transaction(t: Txn): string {
    const actions = t.actions.map((a) => `<action><amount>${xml(a.amount)}</amount><action_type>${a.type}</action_type><date>20260101120000</date><success>${a.success ? 1 : 0}</success><source>api</source><response_text>${xml(a.text)}</response_text><response_code>${a.code}</response_code></action>`);
    return `<transaction><transaction_id>${t.id}</transaction_id><transaction_type>cc</transaction_type><condition>${t.condition}</condition><order_id>${xml(t.orderid)}</order_id><merchant_defined_field id="1"></merchant_defined_field>${actions.join('')}</transaction>`;
  }

  function queryApi(req: RecordedRequest, res: ServerResponse): void {
    const send = (inner: string): void => void res.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n<nm_response>${inner}</nm_response>\n`);
    if (req.body.security_key !== key) return send('<error_response>Authentication Failed</error_response>');
    const { order_id: orderId, transaction_id: id } = req.body;
    const found = [...txns.values()].filter((t) => (orderId === undefined || t.orderid === orderId) && (id === undefined || t.id === id));
    send(found.map(transaction).join('\n'));
  }

  /** The scripted failures both endpoints share; true when the request is dealt with. */
  function failure(b: NmiBehaviour, res: ServerResponse, go: () => void): boolean {
    switch (b.kind) {
      case 'timeout': return true; // never answers
      case 'reset': res.socket?.destroy(); return true;
      case 'malformed': res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</bo'); return true;
      case 'status': res.writeHead(b.status, { 'content-type': 'text/html' }).end(`<html><body>${b.status}</body></html>`); return true;
      case 'delay': setTimeout(go, b.ms); return true;
      case 'hold': void b.released().then(go); return true;
      default: return false;
    }
  }

  function route(req: RecordedRequest, res: ServerResponse): void {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (req.path === '/api/query.php') {
      const b = take('query');
      if (!b || !failure(b, res, () => queryApi(req, res))) queryApi(req, res);
      return;
    }
    if (req.path !== '/api/transact.php') return void res.writeHead(404).end();
    if (req.body.security_key !== key) return answer(res, { response: '3', text: 'Authentication Failed', code: '300', type: req.body.type });
    if (req.body.type === 'refund' || req.body.type === 'void') return refundOrVoid(req, res);
    if (req.body.type !== 'sale') return answer(res, { response: '3', text: `Invalid Transaction Type ${refId()}`, code: '300' });
    const b = take('sale') ?? fallback;
    if (!failure(b, res, () => sale(req, res, { kind: 'approve' }))) sale(req, res, b);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const body = Object.fromEntries(new URLSearchParams(text));
      const recorded = { method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]!, headers: req.headers, body, rawUrl: req.url ?? '/' };
      requests.push(recorded);
      route(recorded, res);
    });
  };
  const server: Server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    key,
    requests,
    charges,
    script: (...more) => void queue.push(...more),
    fallback: (b) => void (fallback = b),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
