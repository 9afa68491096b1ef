// A merchant's HTTP bridge for tests, written from the protocol (docs/gateways/http.md),
// independently of the connector's code. It verifies each call's Standard Webhooks signature
// with the published `standardwebhooks` package (1.1.1: `Webhook.verify(payload, headers)` in
// dist/index.d.ts; a 300 s timestamp tolerance either way in dist/index.js) and refuses a bad
// one (401); checks the
// version, the operation, the fields each operation requires and that the Idempotency-Key
// header equals the signed body's key (400 otherwise); keeps keys as the protocol demands
// (a repeated key → the first answer, whatever the body; 409 while the first call with it
// is still running; 4xx refusals are not kept); records every request and the charges made;
// and answers `authorize` calls as scripted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export type BridgeBehaviour =
  | { kind: 'approve'; networkTransactionId?: string }
  | { kind: 'decline'; responseCode: string; adviceCode?: string; rawCode?: string; rawMessage?: string }
  | { kind: 'challenge'; method: '3ds' | 'cvv' }
  | { kind: 'status'; status: 400 | 401 | 404 | 409 | 422 | 429 | 500 | 502 | 503 }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  /** Charges, then drops the connection before answering: the outcome is unknown to the caller. */
  | { kind: 'reset_after_charge' }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** 200 with JSON that is not a protocol answer. */
  | { kind: 'off_protocol' }
  /** 201 with a protocol answer: only 200 carries an answer. */
  | { kind: 'created' }
  /** Latency, the scenario's: behaves as `then` (default: approve) `ms` after the call arrived. */
  | { kind: 'delay'; ms: number; then?: BridgeBehaviour }
  /** Holds the call unanswered until `released()` (asked once per call) settles, then behaves as `then` (default: approve). */
  | { kind: 'hold'; released: () => Promise<unknown>; then?: BridgeBehaviour };

export interface RecordedCall {
  headers: IncomingMessage['headers'];
  /** The exact bytes received (what the signature covers). */
  raw: string;
  body: Record<string, unknown>;
  /** Whether the signature verified. */
  signed: boolean;
}

export interface BridgeFake {
  url: string;
  secret: string;
  requests: RecordedCall[];
  /** Approved authorizations, by processorRef: the money actually taken. */
  charges: Map<string, { amount: number; currency: string; key: string }>;
  /** Behaviours for the next authorize calls, in order; then `fallback`. */
  script(...next: BridgeBehaviour[]): void;
  fallback(b: BridgeBehaviour): void;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };
const OPERATIONS = ['authorize', 'refund', 'void', 'lookup', 'test'];
const REQUIRED: Record<string, string[]> = {
  authorize: ['reference', 'amount', 'currency', 'initiator'],
  refund: ['reference', 'processorRef', 'amount', 'currency'],
  void: ['reference', 'processorRef', 'currency'],
  lookup: ['chargeKey', 'reference'],
  test: [],
};

const send = (res: ServerResponse, a: Answer) => {
  res.writeHead(a.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(a.body));
};
const refuse = (status: number, code: string): Answer => ({ status, body: { error: { code, message: `refused: ${code}` } } });

let counter = 0;
const ref = (prefix: string) => `${prefix}_${(++counter).toString().padStart(6, '0')}${randomBytes(3).toString('hex')}`;

/** The protocol's checks of a verified body: a refusal, or undefined when it is well formed. */
function invalid(body: Record<string, unknown>, headerKey: string | undefined): Answer | undefined {
  if (body.version !== 1) return refuse(400, 'unsupported_version');
  if (typeof body.operation !== 'string' || !OPERATIONS.includes(body.operation)) return refuse(400, 'unknown_operation');
  if (typeof body.idempotencyKey !== 'string' || body.idempotencyKey === '') return refuse(400, 'missing_idempotency_key');
  if (headerKey !== body.idempotencyKey) return refuse(400, 'idempotency_key_mismatch');
  if (REQUIRED[body.operation]!.some((f) => body[f] === undefined || body[f] === '')) return refuse(400, 'missing_field');
  if (body.operation !== 'authorize') return undefined;
  if (!Number.isInteger(body.amount) || (body.amount as number) <= 0 || !/^[A-Z]{3}$/.test(String(body.currency))) return refuse(400, 'invalid_amount');
  if ((body.card === undefined) === (body.paymentMethod === undefined)) return refuse(400, 'one_of_card_or_payment_method');
  if (body.initiator === 'merchant' && body.storedCredential !== 'recurring' && body.storedCredential !== 'unscheduled') return refuse(400, 'missing_stored_credential');
  if (body.initiator !== 'merchant' && body.initiator !== 'customer') return refuse(400, 'invalid_initiator');
  return undefined;
}

export async function startBridgeFake(opts: { secret?: string } = {}): Promise<BridgeFake> {
  const secret = opts.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const requests: RecordedCall[] = [];
  const charges: BridgeFake['charges'] = new Map();
  /** `<operation> <key>` → the first answer, or 'in_flight' while it is being made. */
  const keys = new Map<string, Answer | 'in_flight'>();
  const queue: BridgeBehaviour[] = [];
  let fallback: BridgeBehaviour = { kind: 'approve' };

  function authorizeAnswer(body: Record<string, unknown>, b: BridgeBehaviour): Answer & { charged: boolean } {
    const processorRef = ref('ch');
    if (b.kind === 'decline') return { status: 200, charged: false, body: { approved: false, processorRef, responseCode: b.responseCode, ...(b.adviceCode ? { adviceCode: b.adviceCode } : {}), ...(b.rawCode ? { rawCode: b.rawCode } : {}), ...(b.rawMessage ? { rawMessage: b.rawMessage } : {}) } };
    if (b.kind === 'challenge') return { status: 200, charged: false, body: { approved: false, processorRef, responseCode: b.method === '3ds' ? '1A' : 'N7', challenge: b.method, rawCode: b.method === '3ds' ? 'authentication_required' : 'incorrect_cvc' } };
    const ntid = (b.kind === 'approve' && b.networkTransactionId) || `ntid_${processorRef}`;
    charges.set(processorRef, { amount: body.amount as number, currency: body.currency as string, key: body.idempotencyKey as string });
    return { status: b.kind === 'created' ? 201 : 200, charged: true, body: { approved: true, responseCode: '00', processorRef, rawCode: 'approved', networkTransactionId: ntid, extra: 'ignored by rescued' } };
  }

  /** Runs `b` for an authorize whose key is new; the key is kept unless the bridge refused. */
  function authorize(res: ServerResponse, body: Record<string, unknown>, id: string, b: BridgeBehaviour): void {
    if (b.kind === 'delay') return void setTimeout(() => authorize(res, body, id, b.then ?? { kind: 'approve' }), b.ms);
    if (b.kind === 'hold') return void b.released().then(() => authorize(res, body, id, b.then ?? { kind: 'approve' }));
    // Never answers; once the caller has gone (its connection closed) the bridge abandons the
    // call, having charged nothing, and forgets the key: the next call with it is taken anew.
    if (b.kind === 'timeout') return void res.once('close', () => keys.delete(id));
    if (b.kind === 'reset') return void (keys.delete(id), res.socket?.destroy());
    if (b.kind === 'malformed') return void (keys.delete(id), res.writeHead(200, { 'content-type': 'application/json' }).end('{"approved": tr'));
    if (b.kind === 'off_protocol') return void (keys.delete(id), send(res, { status: 200, body: { approved: 'yes', code: 0 } }));
    if (b.kind === 'status') {
      const a = b.status === 409 ? refuse(409, 'request_in_progress') : b.status >= 500 ? refuse(b.status, 'gateway_unavailable') : refuse(b.status, `scripted_${b.status}`);
      keys.delete(id);
      return send(res, a);
    }
    const answer = authorizeAnswer(body, b);
    keys.set(id, { status: answer.status, body: answer.body });
    if (b.kind === 'reset_after_charge') return void res.socket?.destroy();
    send(res, answer);
  }

  function lookup(body: Record<string, unknown>): Answer {
    const first = keys.get(`authorize ${body.chargeKey as string}`);
    if (first === 'in_flight') return refuse(409, 'request_in_progress');
    return { status: 200, body: first && first.status === 200 ? { found: true, ...(first.body as object) } : { found: false } };
  }

  function refundOrVoid(body: Record<string, unknown>): Answer {
    const charge = charges.get(body.processorRef as string);
    if (!charge) return refuse(404, 'unknown_charge');
    if (body.operation === 'void') charges.delete(body.processorRef as string);
    return { status: 200, body: { approved: true, responseCode: '00', processorRef: ref(body.operation === 'void' ? 'vo' : 're'), rawCode: body.operation === 'void' ? 'voided' : 'refunded' } };
  }

  function route(res: ServerResponse, body: Record<string, unknown>): void {
    const op = body.operation as string;
    if (op === 'test') return send(res, { status: 200, body: { ok: true, message: 'fake bridge, protocol version 1' } });
    if (op === 'lookup') return send(res, lookup(body));
    // Keys are kept per operation: a repeated key gets the first answer, whatever its body.
    const id = `${op} ${body.idempotencyKey as string}`;
    const seen = keys.get(id);
    if (seen === 'in_flight') return send(res, refuse(409, 'request_in_progress'));
    if (seen) return send(res, seen);
    if (op !== 'authorize') {
      const a = refundOrVoid(body);
      if (a.status === 200) keys.set(id, a);
      return send(res, a);
    }
    keys.set(id, 'in_flight');
    authorize(res, body, id, queue.shift() ?? fallback);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let signed = true;
      try {
        verifier.verify(raw, req.headers as Record<string, string>);
      } catch {
        signed = false;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // recorded as {}: refused below
      }
      requests.push({ headers: req.headers, raw, body, signed });
      if (req.method !== 'POST') return send(res, refuse(405, 'method_not_allowed'));
      if (!signed) return send(res, refuse(401, 'bad_signature'));
      const bad = invalid(body, req.headers['idempotency-key'] as string | undefined);
      if (bad) return send(res, bad);
      route(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rescued/v1`,
    secret,
    requests,
    charges,
    script: (...next) => void queue.push(...next),
    fallback: (b) => void (fallback = b),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
