// The end-to-end bench's Stripe: POST /v1/payment_intents answered after `latencyMs`, in a
// process of its own (forked) so its HTTP work does not share the bench's event loop. What it
// answers comes from fate.ts (the seed, the entry named by metadata[order_id], and the attempt
// number at the end of metadata[rescued_key], `<orderSessionKey>:<attemptNo>`), so it keeps no
// list of orders: a bitmap of the entries charged (one bit each: 125 KB for a million) finds
// a second charge of an order, and a few counters say when the first attempts came.
//   child → parent  { type: 'ready', url, key }
//   parent → child  { type: 'stats' }  →  child → parent  { type: 'stats', ...FakeStats }
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { answerOf, entryOfOrderId, fateOf } from './fate.ts';

export interface FakeInput {
  latencyMs: number;
  seed: number;
  entries: number;
}

export interface FakeStats {
  /** payment_intents calls, and those that were an order's first attempt. */
  calls: number;
  firstCalls: number;
  /** Epoch ms of the first and the latest first-attempt call's answer. */
  firstStartMs: number;
  firstEndMs: number;
  /** Epoch ms of the latest answer of any call. */
  lastAnswerMs: number;
  approved: number;
  soft: number;
  hard: number;
  /** Money taken, and charges of an order already charged (must be 0). */
  charges: number;
  doubleCharges: number;
  /** Calls naming no entry of the file (must be 0). */
  strays: number;
  maxInFlight: number;
  cpuSeconds: number;
  rssMiB: number;
}

const KEY = 'sk_test_e2ebenche2ebenche2e';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': 'req_e2e' });
  res.end(text);
}

export async function startFake(input: FakeInput) {
  const charged = new Uint8Array(Math.ceil(input.entries / 8) + 1);
  const s: FakeStats = { calls: 0, firstCalls: 0, firstStartMs: 0, firstEndMs: 0, lastAnswerMs: 0, approved: 0, soft: 0, hard: 0, charges: 0, doubleCharges: 0, strays: 0, maxInFlight: 0, cpuSeconds: 0, rssMiB: 0 };
  let inFlight = 0;
  let ids = 0;

  function answer(res: ServerResponse, form: URLSearchParams): void {
    const orderId = form.get('metadata[order_id]') ?? '';
    const key = form.get('metadata[rescued_key]') ?? '';
    const n = entryOfOrderId(orderId);
    const attemptNo = Number(key.slice(key.lastIndexOf(':') + 1));
    const now = Date.now();
    s.lastAnswerMs = now;
    if (attemptNo === 1) {
      s.firstCalls++;
      s.firstStartMs ||= now;
      s.firstEndMs = now;
    }
    const pi = { id: `pi_e2e${(++ids).toString(36).padStart(10, '0')}`, object: 'payment_intent', amount: Number(form.get('amount')), currency: form.get('currency'), livemode: false, metadata: { order_id: orderId, rescued_key: key } };
    if (!(n >= 0 && n < input.entries)) {
      s.strays++;
      return send(res, 400, { error: { type: 'invalid_request_error', message: 'no such entry' } });
    }
    const what = answerOf(fateOf(input.seed, n), attemptNo);
    if (what === 'approve') {
      s.approved++;
      s.charges++;
      if (charged[n >> 3]! & (1 << (n & 7))) s.doubleCharges++;
      charged[n >> 3]! |= 1 << (n & 7);
      return send(res, 200, { ...pi, status: 'succeeded', latest_charge: { id: `ch_${pi.id.slice(3)}`, object: 'charge', payment_method_details: { type: 'card', card: { network_transaction_id: `ntid_${pi.id.slice(3)}` } } } });
    }
    const declineCode = what === 'soft' ? 'insufficient_funds' : 'lost_card';
    if (what === 'soft') s.soft++;
    else s.hard++;
    send(res, 402, {
      error: {
        type: 'card_error', code: 'card_declined', decline_code: declineCode, message: 'Your card was declined.', charge: `ch_${pi.id.slice(3)}`,
        payment_intent: { ...pi, status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: declineCode } },
      },
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${KEY}`) return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'POST' && path === '/v1/payment_intents') {
        s.calls++;
        s.maxInFlight = Math.max(s.maxInFlight, ++inFlight);
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        setTimeout(() => {
          inFlight--;
          answer(res, form);
        }, input.latencyMs);
        return;
      }
      // Reconciliation asks what happened to a call; nothing is ever lost here, so: nothing found.
      if (req.method === 'GET' && path === '/v1/payment_intents/search') return send(res, 200, { object: 'search_result', data: [], has_more: false });
      send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key: KEY,
    stats(): FakeStats {
      const cpu = process.cpuUsage();
      return { ...s, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMiB: Math.round(process.memoryUsage.rss() / 1048576) };
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

// Started by fork() from the bench (not when imported).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fake = await startFake(JSON.parse(process.argv[2] ?? '{}') as FakeInput);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') process.send!({ type: 'stats', ...fake.stats() });
  });
  process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
  process.send!({ type: 'ready', url: fake.url, key: fake.key });
}
