// The e2e tests' webhook receiver (test/helpers/webhooks.ts) on a fixed port that can go down
// (its port closed: connection refused) and come back, and hold its answers for a while (so a
// SIGKILL finds deliveries in flight). Every delivery it received is kept across its lives,
// with its signature verified by the published Standard Webhooks library when it arrives: the
// library refuses a timestamp more than 5 minutes from its own clock, as a receiver must, and a
// trial of a 100k-entry file takes longer than that to settle.
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver, type Received } from '../../helpers/webhooks.ts';

export interface Delivery {
  webhookId: string;
  /** The signature verified against the endpoint's secret. */
  verified: boolean;
  event: string;
  orderId: string;
  /** The event's identity apart from delivery details (TimeStamp, IsResent). */
  content: string;
}

export interface FlakyReceiver {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
  /** Each answer waits this long (0: at once). */
  holdMs(ms: number): void;
  /** A merchant's webhook secret: deliveries are verified against each secret trusted so far. */
  trust(secret: string): void;
  /** Requests received so far (all lives). */
  count(): number;
  deliveries(secret: string): Delivery[];
  close(): Promise<void>;
}

interface Arrived extends Received {
  /** The trusted secret whose signature it carries, if any (checked on arrival). */
  signedWith: string | undefined;
}

function signedWith(r: Received, webhooks: Map<string, Webhook>): string | undefined {
  // The newest merchant first: a trial's deliveries are nearly all its own merchant's.
  for (const [secret, w] of [...webhooks].reverse()) {
    try {
      w.verify(r.body, r.headers as Record<string, string>, { jsonParse: false });
      return secret;
    } catch {
      // not this secret's, or not valid at all
    }
  }
  return undefined;
}

function parse(r: Arrived, secret: string): Delivery {
  const webhookId = String(r.headers['webhook-id'] ?? '');
  const body = JSON.parse(r.body) as { Event: string; OrderId: string; EventData?: unknown; ConfirmationId?: unknown };
  return { webhookId, verified: r.signedWith === secret, event: body.Event, orderId: body.OrderId, content: JSON.stringify([body.Event, body.OrderId, body.ConfirmationId, body.EventData]) };
}

export async function startFlakyReceiver(): Promise<FlakyReceiver> {
  const all: Arrived[] = [];
  const webhooks = new Map<string, Webhook>();
  let hold = 0;
  const answer = (_n: number, r: Received) => {
    all.push({ ...r, signedWith: signedWith(r, webhooks) });
    return hold > 0 ? { status: 200, hold: new Promise((res) => setTimeout(res, hold)) } : 200;
  };
  let live: Receiver | undefined = await startReceiver(answer);
  const port = live.port;
  return {
    url: live.url,
    async down() {
      await live?.close();
      live = undefined;
    },
    async up() {
      live ??= await startReceiver(answer, port);
    },
    holdMs: (ms) => void (hold = ms),
    trust: (secret) => void webhooks.set(secret, new Webhook(secret)),
    count: () => all.length,
    deliveries: (secret) => all.map((r) => parse(r, secret)),
    close: async () => live?.close(),
  };
}
