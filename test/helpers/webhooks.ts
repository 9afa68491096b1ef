// A local webhook receiver (node http on port 0) that records every request and answers
// what the test tells it, and orders with their outbox events.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.ts';
import { orders } from '../../src/db/schema.ts';
import { enqueueOrderEvent, type OrderEventType } from '../../src/webhooks/outbox.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Hold the answer until this resolves. */
  hold?: Promise<unknown>;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests being answered right now, and the most at once. */
  inFlight: () => number;
  maxInFlight: () => number;
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number, r: Received) => Answer | number, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  let now = 0;
  let max = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      now++;
      max = Math.max(max, now);
      const a = answer(received.length, r);
      const { status, headers, hold } = typeof a === 'number' ? { status: a, headers: undefined, hold: undefined } : a;
      void Promise.resolve(hold).then(() => {
        now--;
        res.writeHead(status, headers).end();
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks`,
    port: bound,
    received,
    inFlight: () => now,
    maxInFlight: () => max,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An APPROVED MIT order of the merchant and its outbox event, in one transaction. Returns the webhook-id. */
export async function orderWithEvent(db: Db, merchantId: string, type: OrderEventType = 'order.completed'): Promise<string> {
  return db.transaction(async (tx) => {
    const id = randomUUID();
    await tx.insert(orders).values({
      id, merchantId, orderId: `order-${id.slice(0, 8)}`, idempotencyKey: randomUUID(), kind: 'MIT', status: type === 'order.completed' ? 'APPROVED' : 'EXPIRED',
      amount: 1999, currency: 'USD', cardToken: 'tok_test', declineCode: '51', declineSource: 'iso8583', request: {},
    });
    return enqueueOrderEvent(tx, {
      type, merchantId, orderSessionKey: id, orderId: `order-${id.slice(0, 8)}`, status: type === 'order.completed' ? 'APPROVED' : 'EXPIRED',
      reason: type === 'order.completed' ? null : 'insufficient_funds', amount: 1999, currency: 'USD', attempts: 3, confirmationId: type === 'order.completed' ? 'conf-1' : null,
      isTestMode: true, at: new Date(),
    });
  });
}

export const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

export async function query(db: Db, text: ReturnType<typeof sql>) {
  return rowsOf(await db.execute(text));
}
