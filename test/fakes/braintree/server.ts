// A local Braintree gateway for tests, written from its published reference (Transaction:
// Sale, Refund, Void, Find, Search; Merchant Account: Find — developer.paypal.com/braintree/docs/
// reference) and from what the official SDK sends and reads (braintree 3.40, lib/braintree/
// http.js: JSON bodies with snake_case keys, HTTP Basic with the public and private keys,
// X-ApiVersion 6; answers in XML with dashed names and `type`/`nil` attributes, gzipped when
// asked; 201 for a sale, 422 `api-error-response` for a decline, a gateway rejection (both
// carrying the transaction) or validation errors (without one)). It checks the keys, the
// merchant ID in the path, the API version and the required sale fields; Braintree has no
// idempotency key on this API, so none is checked; its duplicate checking is (on by default,
// 30 s: a sale repeating a successful one's order ID, amount and card is gateway_rejected
// `duplicate`, developer.paypal.com/braintree/articles/control-panel/transactions/duplicate-checking).
// Every transaction is kept, declined ones too, and the order id search finds them, including
// a charge made by a reset-after-charge.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export type BraintreeBehaviour =
  | { kind: 'approve'; networkTransactionId?: string }
  /** processor_declined with `code` (2000–3000) and, as the gateway passes them on, the network's code and Mastercard's MAC. */
  | { kind: 'decline'; code: string; networkResponseCode?: string; merchantAdviceCode?: string }
  | { kind: 'gateway_rejected'; reason: 'avs' | 'cvv' | 'avs_and_cvv' | 'duplicate' | 'fraud' | 'risk_threshold' | 'three_d_secure' | 'token_issuance' | 'application_incomplete' }
  | { kind: 'validation'; code: string; attribute: string }
  | { kind: 'status'; status: 401 | 403 | 429 | 500 | 502 | 503 }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** Latency, the scenario's: answers (approving) `ms` after the call arrived. */
  | { kind: 'delay'; ms: number };

export interface RecordedRequest {
  method: string;
  /** After /merchants/{merchantId}: /transactions, /transactions/{id}/refund, … */
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Xml = string | number | boolean | null | undefined | Xml[] | { [k: string]: Xml };
type Txn = Record<string, Xml> & { id: string; status: string; amount: string; orderId: string | null; type: string };

export interface BraintreeFake {
  url: string;
  /** The fake's certificate when served over TLS (ConnectorOptions.ca). */
  ca: string | undefined;
  credentials: { merchantId: string; publicKey: string; privateKey: string };
  requests: RecordedRequest[];
  /** Sales that took money and were not voided, by transaction id. */
  charges: Map<string, { amount: string; orderId: string | null; merchantAccountId: string | null }>;
  refunds: { id: string; saleId: string; amount: string; orderId: string | null }[];
  /** Marks a sale settled (Braintree settles in a daily batch; only then can it be refunded). */
  settle(id: string): void;
  /** Behaviours for the next sales, in order; then `fallback`. */
  script(...next: BraintreeBehaviour[]): void;
  fallback(b: BraintreeBehaviour): void;
  close(): Promise<void>;
}

const TEXTS: Record<string, string> = { '1000': 'Approved', '2000': 'Do Not Honor', '2001': 'Insufficient Funds', '2004': 'Expired Card', '2010': 'Card Issuer Declined CVV', '2015': 'Transaction Not Allowed', '2046': 'Declined', '2099': 'Cardholder Authentication Required', '3000': 'Processor Network Unavailable - Try Again' };
const HARD = new Set(['2004', '2005', '2007', '2010', '2012', '2013', '2014', '2015']);
const SOURCES = new Set(['recurring', 'unscheduled', 'recurring_first', 'installment', 'installment_first', 'moto', 'merchant']);

const dashed = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The gateway's XML, as the SDK's parser reads it (lib/braintree/util.js, convertNodeToObject). */
export function toXml(name: string, value: Xml): string {
  const tag = dashed(name);
  if (value === undefined) return '';
  if (value === null) return `<${tag} nil="true"/>`;
  if (typeof value === 'boolean') return `<${tag} type="boolean">${value}</${tag}>`;
  if (typeof value === 'number') return `<${tag} type="integer">${value}</${tag}>`;
  if (Array.isArray(value)) return `<${tag} type="array">${value.map((v) => toXml('item', v)).join('')}</${tag}>`;
  if (typeof value === 'object') return `<${tag}>${Object.entries(value).map(([k, v]) => toXml(k, v)).join('')}</${tag}>`;
  return `<${tag}>${esc(value)}</${tag}>`;
}

function certificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'braintree-fake-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let counter = 0;
const newId = () => `${(++counter).toString(36).padStart(4, '0')}${Math.random().toString(36).slice(2, 6)}`;
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

type Problem = [code: string, attribute: string];

/** The sale checks of the Transaction: Sale reference, with the SDK's validation codes. */
function checkSale(t: Record<string, unknown>, accounts: Record<string, string>): Problem | undefined {
  if (t.type !== 'sale') return ['91524', 'type'];
  const amount = str(t.amount);
  if (!amount) return ['81502', 'amount'];
  if (!/^\d+(\.\d{1,3})?$/.test(amount)) return ['81503', 'amount'];
  if (Number(amount) <= 0) return ['81531', 'amount'];
  const account = str(t.merchant_account_id);
  if (account !== undefined && !(account in accounts)) return ['91513', 'merchant_account_id'];
  const currency = accounts[account ?? Object.keys(accounts)[0]!];
  if (currency === 'JPY' && amount.includes('.')) return ['81503', 'amount'];
  const card = obj(t.credit_card);
  if (t.payment_method_token !== undefined && t.credit_card !== undefined) return ['91515', 'base'];
  if (t.payment_method_token === undefined) {
    if (t.credit_card === undefined) return ['91508', 'base'];
    if (!/^\d{12,19}$/.test(str(card.number) ?? '')) return ['81715', 'number'];
    if (!/^(0[1-9]|1[0-2])\/\d{4}$/.test(str(card.expiration_date) ?? '')) return ['81710', 'expiration_date'];
    if (card.cvv !== undefined && !/^\d{3,4}$/.test(str(card.cvv) ?? '')) return ['81707', 'cvv'];
  }
  if (t.transaction_source !== undefined && !SOURCES.has(str(t.transaction_source) ?? '')) return ['915133', 'transaction_source'];
  const vault = t.external_vault === undefined ? undefined : obj(t.external_vault);
  if (vault && vault.status !== 'vaulted' && vault.status !== 'will_vault') return ['915175', 'status'];
  if (vault?.status === 'will_vault' && vault.previous_network_transaction_id !== undefined) return ['915177', 'status'];
  if (t.three_d_secure_pass_thru !== undefined && !str(obj(t.three_d_secure_pass_thru).eci_flag)) return ['915113', 'eci_flag'];
  return undefined;
}

const SUCCESSFUL = new Set(['authorized', 'submitted_for_settlement', 'settling', 'settled', 'voided']);
const cardOf = (t: Record<string, unknown>) => str(t.payment_method_token) ?? `${str(obj(t.credit_card).number)}|${str(obj(t.credit_card).expiration_date)}`;

export async function startBraintreeFake(opts: { tls?: boolean; accounts?: Record<string, string>; duplicateWindowMs?: number } = {}): Promise<BraintreeFake> {
  const duplicateWindowMs = opts.duplicateWindowMs ?? 30_000;
  const sent = new Map<string, { card: string; at: number }>();
  const credentials = { merchantId: 'fakemerchant01', publicKey: 'fakepublic01', privateKey: 'fakeprivate0123456789abcdef' };
  const accounts = opts.accounts ?? { rescued_usd: 'USD' };
  const requests: RecordedRequest[] = [];
  const charges: BraintreeFake['charges'] = new Map();
  const refunds: BraintreeFake['refunds'] = [];
  const txns = new Map<string, Txn>();
  const queue: BraintreeBehaviour[] = [];
  let fallback: BraintreeBehaviour = { kind: 'approve' };

  function send(req: IncomingMessage, res: ServerResponse, status: number, root: string, value: Xml): void {
    const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${toXml(root, value)}\n`);
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    res.writeHead(status, { 'content-type': 'application/xml; charset=utf-8', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(gzip ? gzipSync(body) : body);
  }
  const invalid = (req: IncomingMessage, res: ServerResponse, [code, attribute]: Problem) =>
    send(req, res, 422, 'apiErrorResponse', { errors: { transaction: { errors: [{ code, attribute, message: `validation error ${code}` }] }, errors: [] }, message: `validation error ${code}` });
  const answer = (req: IncomingMessage, res: ServerResponse, t: Txn) =>
    t.status === 'processor_declined' || t.status === 'gateway_rejected'
      ? send(req, res, 422, 'apiErrorResponse', { errors: { errors: [] }, message: String(t.processorResponseText ?? t.gatewayRejectionReason), transaction: t })
      : send(req, res, 201, 'transaction', t);

  function transaction(t: Record<string, unknown>, b: BraintreeBehaviour): Txn {
    const card = obj(t.credit_card);
    const number = str(card.number) ?? '';
    const [month, year] = (str(card.expiration_date) ?? '/').split('/');
    const base: Txn = {
      id: newId(), type: 'sale', status: 'submitted_for_settlement', amount: str(t.amount)!, currencyIsoCode: accounts[str(t.merchant_account_id) ?? Object.keys(accounts)[0]!] ?? 'USD',
      orderId: str(t.order_id) ?? null, merchantAccountId: str(t.merchant_account_id) ?? Object.keys(accounts)[0]!, transactionSource: str(t.transaction_source) ?? null,
      processorResponseCode: '1000', processorResponseText: 'Approved', processorResponseType: 'approved', additionalProcessorResponse: null,
      networkResponseCode: '00', networkResponseText: 'Successful approval/completion or V.I.P. PIN verification is successful', networkTransactionId: null, merchantAdviceCode: null, gatewayRejectionReason: null,
      creditCard: number ? { bin: number.slice(0, 6), last4: number.slice(-4), expirationMonth: month ?? '', expirationYear: year ?? '', cardholderName: str(card.cardholder_name) ?? null } : { token: str(t.payment_method_token) ?? null },
    };
    if (b.kind === 'decline') {
      return { ...base, status: 'processor_declined', processorResponseCode: b.code, processorResponseText: TEXTS[b.code] ?? 'Processor Declined', processorResponseType: HARD.has(b.code) ? 'hard_declined' : 'soft_declined', additionalProcessorResponse: `${b.code} : ${TEXTS[b.code] ?? 'Processor Declined'}`, networkResponseCode: b.networkResponseCode ?? null, networkResponseText: null, merchantAdviceCode: b.merchantAdviceCode ?? null };
    }
    if (b.kind === 'gateway_rejected') {
      // AVS and CVV rules are applied to the processor's answer: the authorization happened and Braintree voided it.
      const after = b.reason === 'avs' || b.reason === 'cvv' || b.reason === 'avs_and_cvv';
      return { ...base, status: 'gateway_rejected', gatewayRejectionReason: b.reason, ...(after ? {} : { processorResponseCode: null, processorResponseText: null, processorResponseType: null, networkResponseCode: null }) };
    }
    return { ...base, networkTransactionId: (b.kind === 'approve' && b.networkTransactionId) || `ntid${base.id}` };
  }

  /** A successful sale with the same order ID, amount and card within the window. */
  function isDuplicate(t: Record<string, unknown>): boolean {
    const card = cardOf(t);
    return [...txns.values()].some((x) => {
      const first = sent.get(x.id);
      return x.type === 'sale' && SUCCESSFUL.has(x.status) && x.orderId === (str(t.order_id) ?? null) && x.amount === str(t.amount) && first?.card === card && Date.now() - first.at <= duplicateWindowMs;
    });
  }

  function sale(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, b: BraintreeBehaviour): void {
    if (b.kind === 'validation') return invalid(req, res, [b.code, b.attribute]);
    const t = obj(body.transaction);
    const problem = checkSale(t, accounts);
    if (problem) return invalid(req, res, problem);
    const txn = transaction(t, isDuplicate(t) ? { kind: 'gateway_rejected', reason: 'duplicate' } : b);
    txns.set(txn.id, txn);
    sent.set(txn.id, { card: cardOf(t), at: Date.now() });
    if (txn.status === 'submitted_for_settlement') charges.set(txn.id, { amount: txn.amount, orderId: txn.orderId, merchantAccountId: String(txn.merchantAccountId) });
    if (b.kind === 'reset_after_charge') return void res.socket?.destroy();
    answer(req, res, txn);
  }

  function refund(req: IncomingMessage, res: ServerResponse, sale: Txn, body: Record<string, unknown>): void {
    const t = obj(body.transaction);
    if (sale.status !== 'settled' && sale.status !== 'settling') return invalid(req, res, ['91506', 'base']);
    const amount = str(t.amount) ?? sale.amount;
    const done = refunds.filter((r) => r.saleId === sale.id).reduce((sum, r) => sum + Number(r.amount), 0);
    if (Number(amount) + done > Number(sale.amount) + 1e-9) return invalid(req, res, ['91521', 'amount']);
    const credit: Txn = { ...sale, id: newId(), type: 'credit', status: 'submitted_for_settlement', amount, orderId: str(t.order_id) ?? null, refundedTransactionId: sale.id, networkTransactionId: null };
    txns.set(credit.id, credit);
    refunds.push({ id: credit.id, saleId: sale.id, amount, orderId: credit.orderId });
    send(req, res, 201, 'transaction', credit);
  }

  function route(req: IncomingMessage, res: ServerResponse, r: RecordedRequest): void {
    if (r.method === 'POST' && r.path === '/transactions') {
      const b = queue.shift() ?? fallback;
      if (b.kind === 'timeout') return; // never answers
      if (b.kind === 'reset') return void res.socket?.destroy();
      if (b.kind === 'malformed') return void res.writeHead(201, { 'content-type': 'application/xml; charset=utf-8' }).end('<?xml version="1.0"?>\n<transaction><id>ab');
      if (b.kind === 'status') return void res.writeHead(b.status, { 'content-type': 'application/xml; charset=utf-8' }).end();
      if (b.kind === 'delay') return void setTimeout(() => sale(req, res, r.body, { kind: 'approve' }), b.ms);
      return sale(req, res, r.body, b);
    }
    if (r.method === 'POST' && r.path === '/transactions/advanced_search_ids') {
      const wanted = str(obj(obj(r.body.search).order_id).is);
      const ids = [...txns.values()].filter((t) => wanted !== undefined && t.orderId === wanted).map((t) => t.id).reverse();
      return send(req, res, 200, 'searchResults', { pageSize: 50, ids });
    }
    const account = /^\/merchant_accounts\/([^/]+)$/.exec(r.path);
    if (r.method === 'GET' && account) {
      const currency = accounts[account[1]!];
      return currency ? send(req, res, 200, 'merchantAccount', { id: account[1]!, currencyIsoCode: currency, status: 'active', default: account[1] === Object.keys(accounts)[0] }) : void res.writeHead(404).end();
    }
    const one = /^\/transactions\/([^/]+)(?:\/(refund|void))?$/.exec(r.path);
    const txn = one ? txns.get(one[1]!) : undefined;
    if (!one || !txn) return void res.writeHead(404).end();
    if (r.method === 'GET' && !one[2]) return send(req, res, 200, 'transaction', txn);
    if (r.method === 'POST' && one[2] === 'refund') return refund(req, res, txn, r.body);
    if (r.method === 'PUT' && one[2] === 'void') {
      if (txn.status !== 'submitted_for_settlement' && txn.status !== 'authorized') return invalid(req, res, ['91504', 'base']);
      txn.status = 'voided';
      charges.delete(txn.id);
      return send(req, res, 200, 'transaction', txn);
    }
    res.writeHead(404).end();
  }

  const basic = `Basic ${Buffer.from(`${credentials.publicKey}:${credentials.privateKey}`).toString('base64')}`;
  const prefix = `/merchants/${credentials.merchantId}`;
  const listener: RequestListener = (req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const url = (req.url ?? '/').split('?')[0]!;
      let body: Record<string, unknown>;
      try {
        body = obj(JSON.parse(text || '{}'));
      } catch {
        return void res.writeHead(400).end();
      }
      const recorded = { method: req.method ?? 'GET', path: url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : url, headers: req.headers, body };
      requests.push(recorded);
      if (req.headers.authorization !== basic) return void res.writeHead(401).end();
      if (!url.startsWith(`${prefix}/`)) return void res.writeHead(403).end();
      if (req.headers['x-apiversion'] !== '6') return void res.writeHead(426).end();
      route(req, res, recorded);
    });
  };
  const tls = opts.tls ? certificate() : undefined;
  const server = tls ? createTlsServer({ key: tls.key, cert: tls.cert }, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    ca: tls?.cert,
    credentials,
    requests,
    charges,
    refunds,
    settle: (id) => void (txns.get(id)!.status = 'settled'),
    script: (...next) => void queue.push(...next),
    fallback: (b) => void (fallback = b),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
