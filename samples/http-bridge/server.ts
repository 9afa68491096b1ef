// A runnable example of an HTTP bridge: the endpoint a merchant runs so that rescued can
// charge through a gateway rescued has no connector for. It speaks the protocol of
// docs/gateways/http.md, version 1, with node:http and node:crypto only:
//
//   BRIDGE_SECRET=whsec_… [BRIDGE_PORT=8787] [BRIDGE_HOST=127.0.0.1] node samples/http-bridge/server.ts
//
// What it shows, in order: the signature check (Standard Webhooks, by hand), the protocol's
// checks, the idempotency store (a repeated key gets the first answer), and the three
// functions marked YOUR GATEWAY, which here answer the sandbox's test cards
// (samples/test-cards.json) deterministically instead of charging anything.
// It never logs a request body: card numbers and CVVs arrive in them.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line no-restricted-properties -- a standalone sample takes its settings from its environment
const env = process.env;
const SECRET = env.BRIDGE_SECRET ?? '';
const PORT = Number(env.BRIDGE_PORT ?? 8787);
const HOST = env.BRIDGE_HOST ?? '127.0.0.1';
if (!/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(SECRET)) {
  console.error('BRIDGE_SECRET must be the account\'s signing secret, whsec_ followed by base64 (see README.md)');
  process.exit(1);
}
/** The HMAC key is the decoded bytes after `whsec_`, not the text of the secret. */
const KEY = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
const TOLERANCE_SECONDS = 5 * 60;
const MAX_BODY_BYTES = 64 * 1024;

type Body = Record<string, unknown>;
interface Answer { status: number; body: unknown }

const ok = (body: unknown): Answer => ({ status: 200, body });
const refuse = (status: number, code: string, message: string): Answer => ({ status, body: { error: { code, message } } });

// --- 1. The signature: Standard Webhooks (www.standardwebhooks.com), the scheme rescued also
// signs its webhooks with. The `standardwebhooks` npm package does the same in one call:
// new Webhook(secret).verify(rawBody, headers). By hand, so it can be ported to any language:
// base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${raw body}`)) must equal one
// of the space-separated `v1,<base64>` entries of webhook-signature (two during a rotation),
// and the timestamp must be within 5 minutes of this machine's clock (replays older than
// that are refused; a replay inside it gets the stored answer of its key, below).
function verified(headers: IncomingMessage['headers'], raw: Buffer): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(Date.now() / 1000 - seconds) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', KEY).update(`${id}.${timestamp}.`).update(raw).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    // Constant-time comparison: the spec asks for it, against timing attacks.
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// --- 2. YOUR GATEWAY: replace these three functions with calls to your gateway. Pass the
// request's idempotencyKey on as your gateway's own idempotency key when it has one, so that
// the gateway itself never charges a key twice. Map its decline to a two-character ISO 8583
// response code (its raw network code when it gives one) and its advice code; keep its own
// code in rawCode. Here they answer the test cards of samples/test-cards.json instead.
interface TestCard { number: string; processor: { outcome: string; responseCode?: string; declineCode?: string; merchantAdviceCode?: string; method?: '3ds' | 'cvv'; attempts?: number } }
const TEST_CARDS = new Map((JSON.parse(readFileSync(new URL('../test-cards.json', import.meta.url), 'utf8')) as { cards: TestCard[] }).cards.map((c) => [c.number, c.processor]));
const triesByCard = new Map<string, number>();
const charges = new Map<string, { amount: number; refunded: number; voided: boolean }>();

const decline = (responseCode: string, rawCode: string, adviceCode?: string): Body => ({ approved: false, responseCode, processorRef: `sample_${randomUUID()}`, rawCode, ...(adviceCode ? { adviceCode } : {}) });

async function chargeWithYourGateway(req: Body): Promise<Answer> {
  const card = req.card as { number: string } | undefined;
  const rule: TestCard['processor'] | undefined = card ? TEST_CARDS.get(card.number) : { outcome: 'approve' }; // a gateway payment method: approved
  if (!rule) return ok(decline('05', 'not_a_test_card'));
  const tries = (triesByCard.get(card?.number ?? '') ?? 0) + 1;
  if (card) triesByCard.set(card.number, tries);
  if (rule.outcome === 'challenge') {
    const passed = rule.method === 'cvv' ? typeof req.cvv === 'string' : typeof (req.threeDSecure as Body | undefined)?.authenticationValue === 'string';
    if (!passed) return ok({ ...decline(rule.method === 'cvv' ? 'N7' : '1A', `${rule.method ?? '3ds'}_required`), ...(req.initiator === 'customer' ? { challenge: rule.method } : {}) });
  } else if (rule.outcome === 'decline' || (rule.outcome === 'approve_after' && tries <= (rule.attempts ?? 0))) {
    return ok(decline(rule.responseCode ?? rule.declineCode ?? '05', rule.outcome, rule.merchantAdviceCode));
  } else if (rule.outcome !== 'approve' && rule.outcome !== 'approve_after') {
    // Time-dependent test cards (paydays, outages, advised waits): their decline, always.
    return ok(decline(rule.declineCode ?? '05', rule.outcome, rule.merchantAdviceCode));
  }
  const processorRef = `sample_${randomUUID()}`;
  charges.set(processorRef, { amount: req.amount as number, refunded: 0, voided: false });
  return ok({ approved: true, responseCode: '00', processorRef, rawCode: 'approved', networkTransactionId: `sample_ntid_${processorRef.slice(-12)}` });
}

async function refundWithYourGateway(req: Body): Promise<Answer> {
  const charge = charges.get(req.processorRef as string);
  if (!charge) return refuse(404, 'unknown_charge', 'no charge with this processorRef');
  const amount = req.amount as number;
  if (charge.voided || charge.refunded + amount > charge.amount) return ok(decline('13', 'refund_exceeds_charge'));
  charge.refunded += amount;
  return ok({ approved: true, responseCode: '00', processorRef: `sample_refund_${randomUUID()}`, rawCode: 'refunded' });
}

async function voidWithYourGateway(req: Body): Promise<Answer> {
  const charge = charges.get(req.processorRef as string);
  if (!charge) return refuse(404, 'unknown_charge', 'no charge with this processorRef');
  charge.voided = true;
  return ok({ approved: true, responseCode: '00', processorRef: req.processorRef, rawCode: 'voided' });
}

// --- 3. Idempotency: a repeated key gets the first answer, whatever the body; while the
// first call with a key is running, 409. Kept in memory here: a real bridge MUST persist
// them (a database table with a unique key), for at least 7 days, and write the key before
// calling its gateway, or a restart between the charge and the answer charges twice.
// Refusals (4xx) are not kept: rescued may send the same key again once the cause is fixed.
const answers = new Map<string, Answer | 'in_flight'>();

async function once(operation: string, key: string, call: () => Promise<Answer>): Promise<Answer> {
  const id = `${operation} ${key}`;
  const seen = answers.get(id);
  if (seen === 'in_flight') return refuse(409, 'request_in_progress', 'the first call with this key is still running');
  if (seen) return seen;
  answers.set(id, 'in_flight');
  try {
    const answer = await call();
    if (answer.status === 200) answers.set(id, answer);
    else answers.delete(id);
    return answer;
  } catch (err) {
    // The gateway's outcome is unknown to us too. Safe to forget the key only because the
    // gateway was given it as its own idempotency key; otherwise keep it in flight and look
    // the charge up at the gateway before answering this key again.
    answers.delete(id);
    console.error(`${operation} ${key}: gateway call failed: ${(err as Error).name}`);
    return refuse(502, 'gateway_unavailable', 'the gateway could not be reached');
  }
}

function lookup(req: Body): Answer {
  const first = answers.get(`authorize ${req.chargeKey as string}`);
  if (first === 'in_flight') return refuse(409, 'request_in_progress', 'the charge with this key is still running');
  return ok(first ? { found: true, ...(first.body as Body) } : { found: false });
}

// --- 4. The protocol: check, then dispatch.
const REQUIRED: Record<string, string[]> = {
  authorize: ['reference', 'amount', 'currency', 'initiator'],
  refund: ['reference', 'processorRef', 'amount', 'currency'],
  void: ['reference', 'processorRef', 'currency'],
  lookup: ['chargeKey', 'reference'],
  test: [],
};

async function handle(headers: IncomingMessage['headers'], raw: Buffer): Promise<Answer> {
  if (!verified(headers, raw)) return refuse(401, 'bad_signature', 'the signature does not verify with this secret');
  let req: Body;
  try {
    req = JSON.parse(raw.toString('utf8')) as Body;
  } catch {
    return refuse(400, 'invalid_json', 'the body is not JSON');
  }
  if (req.version !== 1) return refuse(400, 'unsupported_version', 'this bridge speaks version 1');
  const operation = String(req.operation);
  const required = REQUIRED[operation];
  if (!required) return refuse(400, 'unknown_operation', 'operation must be authorize, refund, void, lookup or test');
  // The key that counts is the one inside the signed body; the header must say the same.
  const key = req.idempotencyKey;
  if (typeof key !== 'string' || key === '' || headers['idempotency-key'] !== key) return refuse(400, 'idempotency_key_mismatch', 'Idempotency-Key must equal the body\'s idempotencyKey');
  const missing = required.find((f) => req[f] === undefined || req[f] === '');
  if (missing) return refuse(400, 'missing_field', `${missing} is required`);
  if (operation === 'test') return ok({ ok: true, message: 'sample bridge, protocol version 1' });
  if (operation === 'lookup') return lookup(req);
  if (operation === 'authorize') return once(operation, key, () => chargeWithYourGateway(req));
  return once(operation, key, () => (operation === 'refund' ? refundWithYourGateway(req) : voidWithYourGateway(req)));
}

function reply(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(answer.body));
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') return reply(res, refuse(405, 'method_not_allowed', 'POST only'));
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return reply(res, refuse(413, 'body_too_large', `at most ${MAX_BODY_BYTES} bytes`));
    void handle(req.headers, Buffer.concat(chunks)).then((answer) => {
      // The operation, the key and the outcome only: never the body.
      console.log(`${new Date().toISOString()} ${String(req.headers['webhook-id'] ?? '-')} → ${answer.status}`);
      reply(res, answer);
    });
  });
});

server.listen(PORT, HOST, () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`http bridge sample listening on http://${address.includes(':') ? `[${address}]` : address}:${port}/`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
