// The e2e tests' webhook receiver (test/helpers/webhooks.ts) on a fixed port that can go down
// (its port closed: connection refused) and come back, and hold its answers for a while (so a
// SIGKILL finds deliveries in flight). Every delivery it received is kept across its lives,
// with its signature verified by the published Standard Webhooks library.
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
  /** Requests received so far (all lives). */
  count(): number;
  deliveries(secret: string): Delivery[];
  close(): Promise<void>;
}

function parse(r: Received, secret: string): Delivery {
  const webhookId = String(r.headers['webhook-id'] ?? '');
  let verified = true;
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } catch {
    verified = false;
  }
  const body = JSON.parse(r.body) as { Event: string; OrderId: string; EventData?: unknown; ConfirmationId?: unknown };
  return { webhookId, verified, event: body.Event, orderId: body.OrderId, content: JSON.stringify([body.Event, body.OrderId, body.ConfirmationId, body.EventData]) };
}

export async function startFlakyReceiver(): Promise<FlakyReceiver> {
  const all: Received[] = [];
  let hold = 0;
  const answer = (_n: number, r: Received) => {
    all.push(r);
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
    count: () => all.length,
    deliveries: (secret) => all.map((r) => parse(r, secret)),
    close: async () => live?.close(),
  };
}
