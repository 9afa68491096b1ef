// PostgreSQL's fast way (store-copy.ts) for chunks the intake worker parsed, checked and
// encoded (parse-worker.ts): on the daemon's thread only what needs the file's transaction or
// the ack is left — the card look-up, the COPY text sent as it came, the ack's lines. A chunk
// whose card was refused (an unknown token, a sandbox rule) loses that row's line; a chunk
// holding a full card number arrives as entries, whose rows are made once the vault has the
// tokens. The COPY, its failure and the fallback are store-copy.ts's.
import type { Writable } from 'node:stream';
import type { PaymentMethod } from '../domain/index.ts';
import { orderRecord, rawClient } from '../db/queries/insert-orders.ts';
import { COPY_ORDERS, copyLines, keepLines, sendCopy, type CopyClient } from '../db/queries/copy-orders.ts';
import type { AcceptedEntry, RejectedEntry } from './ack.ts';
import { orderRow } from './entries.ts';
import { cardErrors, type StoreContext } from './chunk-store.ts';
import type { ChunkMessage, EncodedRows } from './parse-protocol.ts';

export interface EncodedStore {
  /** Stores one chunk: sent, not yet confirmed (the next statement on the connection confirms it). */
  send(chunk: ChunkMessage): Promise<void>;
  /** Fails if the last COPY did. */
  finish(): Promise<void>;
}

/** A token stands for itself: only the token and the payer's email are read by the card checks. */
const methodOf = (token: string): PaymentMethod => ({ cardNumber: token, token: true }) as PaymentMethod;

export function encodedStore(s: StoreContext): EncodedStore {
  const client = rawClient(s.tx) as CopyClient;

  async function copy(text: string | Uint8Array): Promise<void> {
    const stream: Writable = await client.unsafe(COPY_ORDERS).writable();
    // A failure is reported by the next statement on the connection instead (store-copy.ts).
    await sendCopy(stream, text).catch(() => undefined);
  }

  async function rows(r: EncodedRows): Promise<{ accepted: AcceptedEntry[]; rejected: RejectedEntry[] }> {
    const cards = await s.cards.resolve(s.tx, s.ctx.merchantId, r.tokens.map(methodOf));
    const accepted: AcceptedEntry[] = [];
    const rejected: RejectedEntry[] = [];
    let keep: boolean[] | undefined;
    for (let i = 0; i < r.ids.length; i++) {
      const errors = cardErrors(cards[i]!, { payer: { email: r.emails?.[i] } } as Parameters<typeof cardErrors>[1]);
      if (errors.length > 0 || 'errors' in cards[i]!) {
        rejected.push({ sequenceNumber: r.sequenceNumbers[i]!, orderId: r.orderIds[i]!, errors });
        (keep ??= r.ids.map(() => true))[i] = false;
      } else accepted.push({ sequenceNumber: r.sequenceNumbers[i]!, orderId: r.orderIds[i]!, orderSessionKey: r.ids[i]! });
    }
    if (accepted.length > 0) await copy(keep ? keepLines(r.bytes, keep) : r.bytes);
    return { accepted, rejected };
  }

  /** A chunk holding a full card number: tokenized on the file's transaction, then encoded here. */
  async function entries(chunk: NonNullable<ChunkMessage['entries']>): Promise<{ accepted: AcceptedEntry[]; rejected: RejectedEntry[] }> {
    const cards = await s.cards.resolve(s.tx, s.ctx.merchantId, chunk.map((e) => e.paymentMethod));
    const accepted: AcceptedEntry[] = [];
    const rejected: RejectedEntry[] = [];
    const made = [];
    for (let i = 0; i < chunk.length; i++) {
      const card = cards[i]!;
      const entry = chunk[i]!;
      const errors = cardErrors(card, entry);
      if (errors.length > 0 || 'errors' in card) rejected.push({ sequenceNumber: entry.sequenceNumber, orderId: entry.orderId, errors });
      else {
        const row = orderRow(entry, card.token, s.ctx);
        made.push(orderRecord(row));
        accepted.push({ sequenceNumber: row.sequenceNumber ?? null, orderId: row.orderId, orderSessionKey: row.id! });
      }
    }
    if (made.length > 0) await copy(copyLines(made));
    return { accepted, rejected };
  }

  return {
    async send(chunk) {
      const { ack, counts } = s;
      try {
        for (const r of chunk.rejected) {
          counts.rejected++;
          await ack.reject(r.entry, r.position);
        }
        const stored = chunk.rows ? await rows(chunk.rows) : chunk.entries ? await entries(chunk.entries) : { accepted: [], rejected: [] };
        for (const r of stored.rejected) await ack.reject(r);
        counts.entries = chunk.entryCount;
        counts.accepted += stored.accepted.length;
        counts.rejected += stored.rejected.length;
        if (chunk.carriedCardNumbers) counts.carriedCardNumbers = true;
        await ack.accept(stored.accepted);
        await s.progress?.(counts);
      } finally {
        s.budget?.release(chunk.cost);
      }
    },
    async finish() {
      await client.unsafe('select 1');
    },
  };
}
