// The merchant's webhook endpoint for the end-to-end bench: every delivery's signature is
// checked with the published Standard Webhooks library before it counts, and it is answered
// 204 at once. It keeps no list of deliveries: one byte per entry of the file (which final
// events it has had), counters, and the times the bench reports (fate.ts says which orders are
// final after their first attempt, so it knows when the last of those has been delivered).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { entryOfOrderId, fateOf, finalAtFirst } from './fate.ts';

export interface ReceiverStats {
  deliveries: number;
  /** Deliveries whose signature did not verify (must be 0). */
  unverified: number;
  /** Final events (order.completed / order.expired) of distinct orders, and repeats (must be 0). */
  finals: number;
  repeats: number;
  /** Final events of orders final at their first attempt, the times of the first and the latest. */
  firstFinals: number;
  firstStartMs: number;
  firstEndMs: number;
  lastMs: number;
  /** Deliveries naming no entry of the file, or another event (must be 0). */
  strays: number;
}

/** Started before the merchant exists (its URL is the merchant's endpoint); trust() gives it the secret. */
export async function startE2eReceiver(o: { seed: number; entries: number }) {
  let verifier: Webhook | undefined;
  const seen = new Uint8Array(o.entries);
  const s: ReceiverStats = { deliveries: 0, unverified: 0, finals: 0, repeats: 0, firstFinals: 0, firstStartMs: 0, firstEndMs: 0, lastMs: 0, strays: 0 };

  function count(body: string, headers: Record<string, string>): void {
    s.deliveries++;
    s.lastMs = Date.now();
    try {
      if (!verifier) throw new Error('no secret yet');
      verifier.verify(body, headers);
    } catch {
      s.unverified++;
      return;
    }
    const event = JSON.parse(body) as { ExternalOrderId?: string; EventData?: { type?: string } };
    const n = entryOfOrderId(event.ExternalOrderId ?? '');
    const type = event.EventData?.type;
    if (!(n >= 0 && n < o.entries) || (type !== 'order.completed' && type !== 'order.expired')) {
      s.strays++;
      return;
    }
    if (seen[n]) {
      s.repeats++;
      return;
    }
    seen[n] = 1;
    s.finals++;
    if (finalAtFirst(fateOf(o.seed, n))) {
      s.firstFinals++;
      s.firstStartMs ||= s.lastMs;
      s.firstEndMs = s.lastMs;
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    trust: (secret: string) => void (verifier = new Webhook(secret)),
    stats: (): ReceiverStats => ({ ...s }),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
