// A local Stripe for tests, written from the API reference (docs.stripe.com/api: PaymentIntents
// create/cancel/search, Refunds, Balance; errors as `{ error: { type, code, decline_code, … } }`
// with HTTP 402 for card errors). It checks the bearer key and the required fields, keeps
// idempotency keys as Stripe does (same key and same parameters → the first answer again;
// other parameters → 400 idempotency_error), records every request, and answers as scripted.
// Saved card PaymentMethods (GET /v1/payment_methods/{id}) and charges (GET /v1/charges/{id})
// carry `card` / `payment_method_details.card` with exp_month, exp_year, last4 and fingerprint;
// a scripted decline may `updateCard`: the PaymentMethod is then updated in place after the
// declined charge, as Stripe's automatic card updates do (docs.stripe.com/payments/cards/overview).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StripeBehaviour =
  | { kind: 'approve'; networkTransactionId?: string }
  | { kind: 'decline'; declineCode: string; networkDeclineCode?: string; networkAdviceCode?: string; adviceCode?: string; updateCard?: Partial<FakeCard> }
  | { kind: 'requires_action' }
  /** 409: Stripe's answer while another request with the same Idempotency-Key is still running. */
  | { kind: 'status'; status: 429 | 500 | 503 | 400 | 409 }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** Charges, then never answers: the caller times out with the money taken. */
  | { kind: 'timeout_after_charge' }
  /** Latency, the scenario's: waits `ms`, then behaves as `then` (default: approve). */
  | { kind: 'delay'; ms: number; then?: StripeBehaviour }
  /** Holds the call unanswered until `released()` (asked once per call) settles, then behaves as `then` (default: approve). */
  | { kind: 'hold'; released: () => Promise<unknown>; then?: StripeBehaviour };

/** A saved card as a PaymentMethod's `card` shows it. */
export interface FakeCard {
  exp_month: number;
  exp_year: number;
  last4: string;
  fingerprint: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  rawUrl: string;
}

export interface StripeFake {
  url: string;
  key: string;
  requests: RecordedRequest[];
  /** PaymentIntents that succeeded, by id: the money actually taken, and the card it was taken from (as the charge's payment_method_details.card). */
  charges: Map<string, { amount: number; key: string; metadata: Record<string, string>; card: FakeCard }>;
  /** Saved card PaymentMethods by id; one charged but never added is made with a default card. */
  paymentMethods: Map<string, { id: string; card: FakeCard }>;
  addPaymentMethod(id: string, card?: Partial<FakeCard>): void;
  /** The next `n` reads of a charge or a PaymentMethod answer HTTP 500. */
  failReads(n: number): void;
  /** Behaviours for the next payment_intents calls, in order; then `fallback`. */
  script(...next: StripeBehaviour[]): void;
  fallback(b: StripeBehaviour): void;
  close(): Promise<void>;
}

/** `a[b][c]=v` form fields → nested objects (arrays as `a[0]` or `a[]`). */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = name.split(/\[|\]\[|\]/).filter((p, i) => p !== '' || i === 0);
    let node = out as Record<string, unknown>;
    path.forEach((p, i) => {
      if (i === path.length - 1) node[p] = value;
      else node = (node[p] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Math.random().toString(36).slice(2)}` });
  res.end(JSON.stringify(body));
};
const error = (res: ServerResponse, status: number, body: Record<string, unknown>) => json(res, status, { error: body });

let counter = 0;
const id = (prefix: string) => `${prefix}_${(++counter).toString().padStart(8, '0')}${Math.random().toString(36).slice(2, 8)}`;

export async function startStripeFake(opts: { key?: string } = {}): Promise<StripeFake> {
  const key = opts.key ?? 'sk_test_fakefakefake1234';
  const requests: RecordedRequest[] = [];
  const charges: StripeFake['charges'] = new Map();
  const intents = new Map<string, Record<string, unknown>>();
  const idempotency = new Map<string, { params: string; status: number; body: unknown }>();
  const queue: StripeBehaviour[] = [];
  let fallback: StripeBehaviour = { kind: 'approve' };
  const paymentMethods: StripeFake['paymentMethods'] = new Map();
  const chargeObjects = new Map<string, Record<string, unknown>>();
  let readFailures = 0;
  const addPaymentMethod = (pmId: string, card: Partial<FakeCard> = {}) => void paymentMethods.set(pmId, { id: pmId, card: { exp_month: 12, exp_year: 2030, last4: '4242', fingerprint: `fp_${pmId}`, ...card } });

  /** The card a charge is made with: the saved PaymentMethod's, or the raw card's. */
  function cardOf(body: Record<string, unknown>): FakeCard {
    const pmId = body.payment_method as string | undefined;
    if (pmId) {
      if (!paymentMethods.has(pmId)) addPaymentMethod(pmId);
      return { ...paymentMethods.get(pmId)!.card };
    }
    const raw = (body.payment_method_data as { card?: { number?: string; exp_month?: string; exp_year?: string } } | undefined)?.card ?? {};
    return { exp_month: Number(raw.exp_month), exp_year: Number(raw.exp_year), last4: String(raw.number ?? '').slice(-4), fingerprint: `fp_raw_${String(raw.number ?? '').slice(-4)}` };
  }

  function intentFor(body: Record<string, unknown>, b: StripeBehaviour): { status: number; body: unknown; charged: boolean } {
    const pi: Record<string, unknown> = { id: id('pi'), object: 'payment_intent', amount: Number(body.amount), currency: body.currency, metadata: body.metadata ?? {}, livemode: false };
    intents.set(pi.id as string, pi);
    if (b.kind === 'decline') {
      const charge = { id: id('ch'), object: 'charge', payment_method_details: { type: 'card', card: cardOf(body) }, outcome: { network_decline_code: b.networkDeclineCode ?? null, network_advice_code: b.networkAdviceCode ?? null, advice_code: b.adviceCode ?? null } };
      chargeObjects.set(charge.id, charge);
      const pmId = body.payment_method as string | undefined;
      if (pmId && b.updateCard) Object.assign(paymentMethods.get(pmId)!.card, b.updateCard);
      Object.assign(pi, { status: 'requires_payment_method', latest_charge: charge.id, last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: b.declineCode, message: 'Your card was declined.' } });
      return {
        status: 402, charged: false,
        body: { error: { type: 'card_error', code: 'card_declined', decline_code: b.declineCode, message: 'Your card was declined.', charge: charge.id, payment_intent: pi, ...(b.networkDeclineCode ? { network_decline_code: b.networkDeclineCode } : {}), ...(b.networkAdviceCode ? { network_advice_code: b.networkAdviceCode } : {}), ...(b.adviceCode ? { advice_code: b.adviceCode } : {}) } },
      };
    }
    if (b.kind === 'requires_action') return { status: 200, charged: false, body: Object.assign(pi, { status: 'requires_action', latest_charge: null }) };
    const charge = { id: id('ch'), object: 'charge', payment_method_details: { type: 'card', card: { ...cardOf(body), network_transaction_id: (b.kind === 'approve' && b.networkTransactionId) || `ntid_${pi.id as string}` } } };
    chargeObjects.set(charge.id, charge);
    return { status: 200, charged: true, body: Object.assign(pi, { status: 'succeeded', latest_charge: charge }) };
  }

  function createIntent(req: RecordedRequest, res: ServerResponse, b: StripeBehaviour): void {
    const body = req.body;
    if (body.amount === undefined || body.currency === undefined) return error(res, 400, { type: 'invalid_request_error', code: 'parameter_missing', message: 'Missing required param: amount.' });
    if (!body.payment_method && !(body.payment_method_data as { card?: unknown } | undefined)?.card) return error(res, 400, { type: 'invalid_request_error', code: 'parameter_missing', message: 'A payment method is required.' });
    const idem = req.headers['idempotency-key'] as string | undefined;
    const params = JSON.stringify(body);
    const seen = idem ? idempotency.get(idem) : undefined;
    if (seen) {
      if (seen.params !== params) return error(res, 400, { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' });
      res.setHeader('idempotent-replayed', 'true');
      return json(res, seen.status, seen.body);
    }
    const answer = intentFor(body, b);
    if (idem) idempotency.set(idem, { params, status: answer.status, body: answer.body });
    if (answer.charged) {
      const pi = answer.body as { id: string; amount: number; metadata: Record<string, string>; latest_charge: { payment_method_details: { card: FakeCard & { network_transaction_id?: string } } } };
      const { network_transaction_id: _ntid, ...card } = pi.latest_charge.payment_method_details.card;
      charges.set(pi.id, { amount: pi.amount, key: idem ?? '', metadata: pi.metadata, card });
    }
    if (b.kind === 'reset_after_charge') return void res.socket?.destroy();
    if (b.kind === 'timeout_after_charge') return; // charged; never answers
    json(res, answer.status, answer.body);
  }

  function paymentIntent(req: RecordedRequest, res: ServerResponse, b: StripeBehaviour): void {
    if (b.kind === 'timeout') return; // never answers
    if (b.kind === 'reset') return void res.socket?.destroy();
    if (b.kind === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "pi_');
    if (b.kind === 'status' && b.status === 409) return error(res, 409, { type: 'invalid_request_error', code: 'idempotency_key_in_use', message: 'There is currently another in-progress request using this Idempotency Key. Please try again later.' });
    if (b.kind === 'status') return error(res, b.status, { type: b.status === 429 ? 'rate_limit_error' : b.status === 400 ? 'invalid_request_error' : 'api_error', message: `scripted ${b.status}` });
    if (b.kind === 'delay') return void setTimeout(() => paymentIntent(req, res, b.then ?? { kind: 'approve' }), b.ms);
    if (b.kind === 'hold') return void b.released().then(() => paymentIntent(req, res, b.then ?? { kind: 'approve' }));
    return createIntent(req, res, b);
  }

  function route(req: RecordedRequest, res: ServerResponse): void {
    if (req.method === 'POST' && req.path === '/v1/payment_intents') return paymentIntent(req, res, queue.shift() ?? fallback);
    const cancel = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(req.path);
    if (req.method === 'POST' && cancel) {
      const pi = intents.get(cancel[1]!);
      if (!pi) return error(res, 404, { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' });
      charges.delete(pi.id as string);
      return json(res, 200, Object.assign(pi, { status: 'canceled' }));
    }
    if (req.method === 'POST' && req.path === '/v1/refunds') {
      if (!intents.has(req.body.payment_intent as string)) return error(res, 404, { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' });
      return json(res, 200, { id: id('re'), object: 'refund', amount: Number(req.body.amount), status: 'succeeded', payment_intent: req.body.payment_intent });
    }
    if (req.method === 'GET' && req.path === '/v1/payment_intents/search') {
      const wanted = /metadata\['rescued_key'\]:'(.*)'/.exec(new URL(`http://x${req.rawUrl}`).searchParams.get('query') ?? '')?.[1];
      const data = [...intents.values()].filter((pi) => (pi.metadata as Record<string, string>).rescued_key === wanted);
      return json(res, 200, { object: 'search_result', data, has_more: false });
    }
    const read = /^\/v1\/(charges|payment_methods)\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && read && readFailures > 0) {
      readFailures--;
      return error(res, 500, { type: 'api_error', message: 'scripted 500' });
    }
    if (req.method === 'GET' && read) {
      const found = read[1] === 'charges' ? chargeObjects.get(read[2]!) : paymentMethods.has(read[2]!) ? { object: 'payment_method', type: 'card', ...paymentMethods.get(read[2]!)! } : undefined;
      if (!found) return error(res, 404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${read[1] === 'charges' ? 'charge' : 'PaymentMethod'}: '${read[2]!}'` });
      return json(res, 200, found);
    }
    if (req.method === 'GET' && req.path === '/v1/balance') return json(res, 200, { object: 'balance', livemode: false, available: [] });
    error(res, 404, { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.path})` });
  }

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const recorded = { method: req.method ?? 'GET', path, headers: req.headers, body: parseForm(text), rawUrl: req.url ?? '/' };
      requests.push(recorded);
      if (req.headers.authorization !== `Bearer ${key}`) return error(res, 401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_****' });
      route(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    requests,
    charges,
    paymentMethods,
    addPaymentMethod,
    failReads: (count) => void (readFailures = count),
    script: (...next) => void queue.push(...next),
    fallback: (b) => void (fallback = b),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

