// PostgreSQL's fast way to store a file's orders: one COPY statement per chunk on the file's
// transaction, with no savepoint and no wait for the COPY to finish. While the server stores
// chunk N, this process parses chunk N+1 and encodes its COPY text, which is sent the moment
// the server is ready for it; at most `depth` chunks wait ahead, so memory stays bounded.
//
// A COPY cannot skip a duplicate the way INSERT … ON CONFLICT DO NOTHING does, and without a
// savepoint its failure aborts the whole transaction: so any failure here ends the fast way,
// the transaction is rolled back, and the file is read again and stored the careful way
// (chunk-store.ts), which names the duplicates or raises the real error. A file with no
// duplicate — the usual case — is read once.
//
// postgres-js loses an error the server raises after the client has ended a COPY stream
// (copy-orders.ts); the statement sent after it on the same connection (the next chunk's card
// look-up or COPY, or the closing `select 1`) fails in its place ("current transaction is
// aborted"), which is all this needs: the careful way then finds the real cause.
import type { Writable } from 'node:stream';
import type { BatchEntry } from '../domain/index.ts';
import { orderRecord, rawClient } from '../db/queries/insert-orders.ts';
import { COPY_ORDERS, copyLines, sendCopy, type CopyClient } from '../db/queries/copy-orders.ts';
import { carriesFullNumber } from '../vault/service.ts';
import type { RejectedEntry } from './ack.ts';
import { orderRow, type EntryContext, type OrderRow } from './entries.ts';
import { cardErrors, type ChunkStore, type StoreContext } from './chunk-store.ts';

/** Chunks parsed ahead of the one being sent: two keep the server busy, and memory small. */
const DEPTH = 2;

interface Prepared {
  entries: BatchEntry[];
  /** The rows and their COPY text, made before the cards are resolved: a token stays itself. */
  rows: OrderRow[] | undefined;
  text: string | undefined;
}

/** A full card number's token is known only once the vault has it: such a chunk is encoded later. */
function prepare(entries: BatchEntry[], ctx: EntryContext): Prepared {
  if (entries.some((e) => carriesFullNumber(e.paymentMethod))) return { entries, rows: undefined, text: undefined };
  const rows = entries.map((e) => orderRow(e, e.paymentMethod.cardNumber, ctx));
  return { entries, rows, text: copyLines(rows.map(orderRecord)) };
}

export function copyStore(s: StoreContext): ChunkStore {
  const client = rawClient(s.tx) as CopyClient;
  let tail: Promise<void> = Promise.resolve();
  const ahead: Array<Promise<void>> = [];

  async function send(p: Prepared): Promise<void> {
    const { ctx, ack, counts } = s;
    const cards = await s.cards.resolve(s.tx, ctx.merchantId, p.entries.map((e) => e.paymentMethod));
    const rejected: RejectedEntry[] = [];
    const rows: OrderRow[] = [];
    let same = p.rows !== undefined;
    for (let i = 0; i < p.entries.length; i++) {
      const card = cards[i]!;
      const entry = p.entries[i]!;
      const errors = cardErrors(card, entry);
      if (errors.length > 0 || 'errors' in card) {
        rejected.push({ sequenceNumber: entry.sequenceNumber, orderId: entry.orderId, errors });
        same = false;
      } else {
        if (card.token !== entry.paymentMethod.cardNumber) same = false;
        rows.push(same ? p.rows![i]! : orderRow(entry, card.token, ctx));
      }
    }
    const text = same ? p.text! : copyLines(rows.map(orderRecord));
    if (rows.length > 0) {
      const stream: Writable = await client.unsafe(COPY_ORDERS).writable();
      // A failure is reported by the next statement on the connection instead (see above).
      await sendCopy(stream, text).catch(() => undefined);
    }
    for (const r of rejected) await ack.reject(r);
    counts.accepted += rows.length;
    counts.rejected += rejected.length;
    await ack.accept(rows.map((r) => ({ sequenceNumber: r.sequenceNumber ?? null, orderId: r.orderId, orderSessionKey: r.id! })));
    await s.progress?.(counts);
  }

  return {
    async push(entries, cost = 0) {
      if (entries.length === 0) return;
      const prepared = prepare(entries, s.ctx);
      const sent = tail.then(() => send(prepared)).finally(() => s.budget?.release(cost));
      sent.catch(() => undefined);
      tail = sent;
      ahead.push(sent);
      if (ahead.length >= DEPTH) await ahead.shift();
    },
    async finish() {
      await tail;
      // Fails if the last COPY did.
      await client.unsafe('select 1');
    },
    settle: () => tail.catch(() => undefined),
  };
}
