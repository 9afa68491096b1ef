// A local Adyen Checkout API (v72) for tests, written from its published reference
// (Adyen/adyen-openapi json/CheckoutService-v72.json; docs.adyen.com/development-resources/
// api-idempotency): POST /payments, /payments/{pspReference}/refunds and /cancels,
// /paymentMethods. Served over TLS, because the SDK talks only HTTPS: the fake makes its own
// certificate for 127.0.0.1 (openssl, in a temporary folder removed at once) and hands it out
// as `ca`. It checks the X-API-Key, the merchant account, the required fields, and the
// Idempotency-Key (at most 64 characters; rescued always sends one). It keeps keys as Adyen
// does: a repeated key gets the first answer, and a key whose first call is still running
// gets 409 / errorCode 704. Adyen has no look-up of a payment by key: that replay is the
// look-up, and it finds charges made by a reset-after-charge too.
// Real Time Account Updater (docs.adyen.com/online-payments/account-updater/real-time-account-updater):
// a card registered with `updateCard` is refused by its issuer, and the fake, as Adyen does on a
// ContAuth payment with an amount and no CVC, "retries" it with the updated details inside the
// same payment: CardChanged / CardExpiryChanged → Authorised, CloseAccount /
// ContactCardAccountHolder → Refused; the answer carries `additionalData.realtimeAccountUpdaterStatus`,
// `expiryDate` and `cardSummary` (ResponseAdditionalDataCommon / ResponseAdditionalDataCard), and
// for an Adyen token `tokenization.storedPaymentMethodId` (the same id: updated in place, so
// the token's next payment goes out on the updated details and asks the updater nothing).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the fake's account updater knows about a card. */
export interface AdyenUpdate {
  status: 'CardChanged' | 'CardExpiryChanged' | 'CloseAccount' | 'ContactCardAccountHolder';
  /** As Adyen sends it: "3/2030". */
  expiryDate?: string;
  /** The updated card's last four. */
  cardSummary?: string;
}

export type AdyenBehaviour =
  | { kind: 'authorise'; networkTxReference?: string }
  /** resultCode Refused with refusalReasonCode `code`; `raw` and `advice` as additionalData sends them. */
  | { kind: 'refuse'; code: string; reason: string; raw?: string; advice?: string }
  | { kind: 'result'; resultCode: 'Error' | 'Cancelled' | 'Received' | 'Pending'; code?: string; reason?: string }
  | { kind: 'action'; resultCode: 'RedirectShopper' | 'IdentifyShopper' | 'ChallengeShopper' }
  | { kind: 'status'; status: 400 | 422 | 429 | 500 | 503; errorCode?: string }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** Latency, the scenario's: answers (approving) `ms` after the call arrived. */
  | { kind: 'delay'; ms: number }
  /** Holds the call unanswered until `released()` (asked once per call) settles, then approves it. */
  | { kind: 'hold'; released: () => Promise<unknown> };

export interface RecordedRequest {
  method: string;
  /** Without the version prefix: /payments, /payments/{psp}/refunds, ... */
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface Charge {
  amount: number;
  currency: string;
  key: string;
  reference: string;
  merchantOrderReference?: string;
}

export interface AdyenFake {
  /** The base URL, version included, as the SDK's own (https://checkout-test.adyen.com/v72). */
  url: string;
  /** The fake's certificate, to trust (ConnectorOptions.ca). */
  ca: string;
  apiKey: string;
  merchantAccount: string;
  requests: RecordedRequest[];
  /** Authorisations not cancelled, by pspReference: the money actually taken. */
  charges: Map<string, Charge>;
  refunds: { pspReference: string; paymentPspReference: string; amount: number; key: string }[];
  /** Registers an update for a card, by its number or its storedPaymentMethodId (the Real Time Account Updater). */
  updateCard(numberOrToken: string, update: AdyenUpdate): void;
  /** Behaviours for the next POST /payments, in order; then `fallback`. */
  script(...next: AdyenBehaviour[]): void;
  fallback(b: AdyenBehaviour): void;
  close(): Promise<void>;
}

const VERSION = '/v72';

function certificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'adyen-fake-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const json = (res: ServerResponse, status: number, body: unknown, key?: string) => {
  res.writeHead(status, { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
  res.end(JSON.stringify(body));
};
/** ServiceError, as the reference gives it. */
const fail = (res: ServerResponse, status: number, errorCode: string, message: string, errorType = 'validation') => json(res, status, { status, errorCode, message, errorType });

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text || '{}') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

let counter = 0;
const psp = () => `FAKE${(++counter).toString().padStart(6, '0')}${Math.random().toString(36).slice(2, 8).toUpperCase().padEnd(6, 'X')}`;

/** The required fields of PaymentRequest (spec: amount, merchantAccount, paymentMethod, reference, returnUrl). */
function missingPaymentField(body: Record<string, unknown>): string | undefined {
  const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
  if (!amount || !Number.isInteger(amount.value) || typeof amount.currency !== 'string' || !/^[A-Z]{3}$/.test(amount.currency)) return 'amount';
  const pm = body.paymentMethod as Record<string, unknown> | undefined;
  if (!pm || pm.type !== 'scheme') return 'paymentMethod.type';
  if (!pm.storedPaymentMethodId && !(pm.number && pm.expiryMonth && pm.expiryYear)) return 'paymentMethod';
  if (pm.storedPaymentMethodId && !body.shopperReference) return 'shopperReference';
  if (typeof body.reference !== 'string' || body.reference.length === 0 || body.reference.length > 80) return 'reference';
  if (typeof body.returnUrl !== 'string') return 'returnUrl';
  return undefined;
}

export async function startAdyenFake(opts: { apiKey?: string; merchantAccount?: string; rawCardData?: boolean } = {}): Promise<AdyenFake> {
  const apiKey = opts.apiKey ?? 'AQEfakefakefakefakeKEY';
  const merchantAccount = opts.merchantAccount ?? 'RescuedTestECOM';
  const requests: RecordedRequest[] = [];
  const charges: AdyenFake['charges'] = new Map();
  const refunds: AdyenFake['refunds'] = [];
  const answered = new Map<string, { status: number; body: unknown }>();
  const running = new Set<string>();
  const queue: AdyenBehaviour[] = [];
  let fallback: AdyenBehaviour = { kind: 'authorise' };
  const updates = new Map<string, AdyenUpdate>();

  /** The updater's answer for this payment, when its card has an update and Adyen would ask (ContAuth, an amount, no CVC). */
  function updaterFor(body: Record<string, unknown>): AdyenUpdate | undefined {
    const pm = body.paymentMethod as { number?: string; storedPaymentMethodId?: string; cvc?: string };
    const update = updates.get(pm.storedPaymentMethodId ?? pm.number ?? '');
    const amount = (body.amount as { value: number }).value;
    return update && body.shopperInteraction === 'ContAuth' && amount > 0 && !pm.cvc ? update : undefined;
  }

  function updaterData(body: Record<string, unknown>, u: AdyenUpdate): Record<string, string> {
    const token = (body.paymentMethod as { storedPaymentMethodId?: string }).storedPaymentMethodId;
    return { realtimeAccountUpdaterStatus: u.status, ...(u.expiryDate ? { expiryDate: u.expiryDate } : {}), ...(u.cardSummary ? { cardSummary: u.cardSummary } : {}), ...(token ? { 'tokenization.storedPaymentMethodId': token } : {}) };
  }

  function outcome(body: Record<string, unknown>, b: AdyenBehaviour, key: string): { body: Record<string, unknown>; charged: boolean } {
    const base = { pspReference: psp(), merchantReference: body.reference };
    const update = updaterFor(body);
    const token = (body.paymentMethod as { storedPaymentMethodId?: string }).storedPaymentMethodId;
    if (update && token && (update.status === 'CardChanged' || update.status === 'CardExpiryChanged')) updates.delete(token);
    if (update && (update.status === 'CloseAccount' || update.status === 'ContactCardAccountHolder')) {
      return { charged: false, body: { ...base, resultCode: 'Refused', refusalReason: 'Refused', refusalReasonCode: '2', additionalData: updaterData(body, update) } };
    }
    if (b.kind === 'refuse') {
      // With an update, the retry on the updated card was refused too: the update is still reported.
      const additionalData = { ...(b.raw ? { refusalReasonRaw: b.raw } : {}), ...(b.advice ? { merchantAdviceCode: b.advice } : {}), ...(update ? updaterData(body, update) : {}) };
      return { charged: false, body: { ...base, resultCode: 'Refused', refusalReason: b.reason, refusalReasonCode: b.code, ...(Object.keys(additionalData).length ? { additionalData } : {}) } };
    }
    if (b.kind === 'result') return { charged: false, body: { ...base, resultCode: b.resultCode, ...(b.code ? { refusalReasonCode: b.code } : {}), ...(b.reason ? { refusalReason: b.reason } : {}) } };
    if (b.kind === 'action') {
      const action = b.resultCode === 'RedirectShopper' ? { type: 'redirect', method: 'GET', url: 'https://checkoutshopper-test.adyen.com/checkoutshopper/threeDS/redirect', paymentMethodType: 'scheme' } : { type: 'threeDS2', subtype: b.resultCode === 'IdentifyShopper' ? 'fingerprint' : 'challenge', token: 'eyJmYWtlIjp0cnVlfQ==', paymentMethodType: 'scheme' };
      return { charged: false, body: { ...base, resultCode: b.resultCode, action } };
    }
    const networkTxReference = (b.kind === 'authorise' && b.networkTxReference) || `NTX${base.pspReference}`;
    const amount = body.amount as { value: number; currency: string };
    charges.set(base.pspReference, { amount: amount.value, currency: amount.currency, key, reference: body.reference as string, ...(body.merchantOrderReference ? { merchantOrderReference: body.merchantOrderReference as string } : {}) });
    return { charged: true, body: { ...base, resultCode: 'Authorised', amount, additionalData: { networkTxReference, ...(update ? updaterData(body, update) : {}) } } };
  }

  function pay(req: RecordedRequest, res: ServerResponse, key: string): void {
    const missing = missingPaymentField(req.body);
    if (missing) return fail(res, 422, '00_422', `Required field '${missing}' is not provided or invalid.`);
    if ((req.body.paymentMethod as { number?: string }).number && opts.rawCardData === false) return fail(res, 403, '010', 'Not allowed', 'security');
    const seen = answered.get(key);
    if (seen) return json(res, seen.status, seen.body, key);
    if (running.has(key)) return fail(res, 409, '704', 'request already processed or in progress');
    const b = queue.shift() ?? fallback;
    if (b.kind === 'timeout') return; // never answers
    if (b.kind === 'reset') return void res.socket?.destroy();
    if (b.kind === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"pspReference": "88');
    if (b.kind === 'status') return fail(res, b.status, b.errorCode ?? `00_${b.status}`, `scripted ${b.status}`, b.status >= 500 ? 'internal' : 'validation');
    const finish = (behaviour: AdyenBehaviour) => {
      running.delete(key);
      const answer = outcome(req.body, behaviour, key);
      answered.set(key, { status: 200, body: answer.body });
      if (behaviour.kind === 'reset_after_charge') return void res.socket?.destroy();
      json(res, 200, answer.body, key);
    };
    running.add(key);
    if (b.kind === 'delay') return void setTimeout(() => finish({ kind: 'authorise' }), b.ms);
    if (b.kind === 'hold') return void b.released().then(() => finish({ kind: 'authorise' }));
    finish(b);
  }

  function modify(req: RecordedRequest, res: ServerResponse, key: string, payment: string, operation: 'refunds' | 'cancels'): void {
    const seen = answered.get(key);
    if (seen) return json(res, seen.status, seen.body, key);
    const charge = charges.get(payment);
    if (!charge) return fail(res, 422, '00_422', 'Original pspReference not found');
    const amount = req.body.amount as { value?: number; currency?: string } | undefined;
    if (operation === 'refunds' && (!amount || !Number.isInteger(amount.value) || amount.currency !== charge.currency)) return fail(res, 422, '00_422', "Required field 'amount' is not provided or invalid.");
    const body = { merchantAccount, paymentPspReference: payment, pspReference: psp(), status: 'received', ...(req.body.reference ? { reference: req.body.reference } : {}), ...(amount ? { amount } : {}) };
    if (operation === 'cancels') charges.delete(payment);
    else refunds.push({ pspReference: body.pspReference, paymentPspReference: payment, amount: amount!.value!, key });
    answered.set(key, { status: 201, body });
    json(res, 201, body, key);
  }

  function route(req: RecordedRequest, res: ServerResponse): void {
    if (req.headers['x-api-key'] !== apiKey) return fail(res, 401, '000', 'HTTP Status Response - Unauthorized', 'security');
    if (req.method !== 'POST') return fail(res, 405, '000', 'Method not allowed');
    if (req.body.merchantAccount !== merchantAccount) return fail(res, 403, '901', 'Invalid Merchant Account', 'security');
    if (req.path === '/paymentMethods') return json(res, 200, { paymentMethods: [{ type: 'scheme', name: 'Cards', brands: ['visa', 'mc', 'amex'] }] });
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key.length === 0 || key.length > 64) return fail(res, 422, '00_422', 'Idempotency-Key missing or longer than 64 characters');
    if (req.path === '/payments') return pay(req, res, key);
    const modification = /^\/payments\/([^/]+)\/(refunds|cancels)$/.exec(req.path);
    if (modification) return modify(req, res, key, modification[1]!, modification[2] as 'refunds' | 'cancels');
    fail(res, 404, '000', `No endpoint ${req.path}`);
  }

  const tls = certificate();
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const url = (req.url ?? '/').split('?')[0]!;
      const body = parseJson(text);
      if (!body) return fail(res, 400, '000', 'Malformed JSON');
      const recorded = { method: req.method ?? 'GET', path: url.startsWith(VERSION) ? url.slice(VERSION.length) : url, headers: req.headers, body };
      requests.push(recorded);
      if (!url.startsWith(`${VERSION}/`)) return fail(res, 404, '000', `No endpoint ${url}`);
      route(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}${VERSION}`,
    ca: tls.cert,
    apiKey,
    merchantAccount,
    requests,
    charges,
    refunds,
    updateCard: (numberOrToken, update) => void updates.set(numberOrToken, update),
    script: (...next) => void queue.push(...next),
    fallback: (b) => void (fallback = b),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
