// Where pass two's checked entries go, a chunk at a time, inside the file's transaction. Two
// ways (DESIGN.md §2, docs/sftp-and-batches.md "How entries are stored"):
// - `carefulStore` (here): resolve the cards, INSERT … ON CONFLICT DO NOTHING, name every
//   duplicate for the ack. One chunk is stored while the next is parsed. PGlite's only way,
//   and PostgreSQL's when the fast way failed.
// - `copyStore` (store-copy.ts): PostgreSQL's fast way, COPY with no savepoint, several
//   chunks in flight; any failure ends it, and the file is read again the careful way.
import type { BatchEntry } from '../domain/index.ts';
import type { FieldError } from '../error-types.ts';
import { findOrderClashes, insertOrders } from '../db/queries/insert-orders.ts';
import { checkSandboxPayerEmail } from '../vault/test-cards.ts';
import { orderRow, type EntryContext, type OrderRow } from './entries.ts';
import type { AckWriter } from './ack.ts';
import type { Transaction as Tx } from '../db/client.ts';
import type { CardResolver } from './types.ts';
import type { FileBudget } from './budget.ts';

export interface PassTwoCounts {
  entries: number;
  accepted: number;
  rejected: number;
  carriedCardNumbers: boolean;
}

/** What a store writes to the ack: its lines (a staged ingest holds them until the chunk's commit). */
export type AckLines = Pick<AckWriter, 'accept' | 'reject'>;

export interface StoreContext {
  tx: Tx;
  cards: CardResolver;
  ctx: EntryContext;
  ack: AckLines;
  counts: PassTwoCounts;
  /** Hears the counts after each stored chunk (intake progress). */
  progress?: (counts: PassTwoCounts) => Promise<void>;
  /** Given back each chunk's memory once it is stored (its `cost`). */
  budget?: FileBudget;
}

export interface ChunkStore {
  /**
   * Takes a chunk of checked entries; may return before it is stored (a bounded number ahead).
   * `cost`: what the chunk holds of the file's memory budget, given back once it is stored.
   */
  push(entries: BatchEntry[], cost?: number): Promise<void>;
  /** Resolves when every chunk is stored; rejects with the first failure. */
  finish(): Promise<void>;
  /** Waits for the chunks in flight, failed or not: nothing may reach the connection after a rollback. */
  settle(): Promise<void>;
}

type ResolvedCard = Awaited<ReturnType<CardResolver['resolve']>>[number];

/** Why an entry whose card was resolved is refused anyway (an unknown token, a sandbox rule). */
export function cardErrors(card: ResolvedCard, entry: BatchEntry): FieldError[] {
  if ('errors' in card) return card.errors;
  const email = checkSandboxPayerEmail(card.testCard, entry.payer.email);
  return email ? [email] : [];
}

/** `copyFirst`: on PostgreSQL, try each chunk by COPY in a savepoint before the INSERT (insert-orders.ts). */
export function carefulStore(s: StoreContext, opts: { copyFirst: boolean }): ChunkStore {
  let inFlight: Promise<void> = Promise.resolve();
  const flush = async (entries: BatchEntry[], cost: number) => {
    try {
      const rejected = await storeChunk(s, entries, opts.copyFirst);
      s.counts.accepted += entries.length - rejected;
      s.counts.rejected += rejected;
      await s.progress?.(s.counts);
    } finally {
      s.budget?.release(cost);
    }
  };
  return {
    async push(entries, cost = 0) {
      await inFlight;
      inFlight = flush(entries, cost);
      // Its failure is awaited later (at the next chunk, or at the end); until then it must
      // not count as unhandled, which would end the process.
      inFlight.catch(() => undefined);
    },
    finish: () => inFlight,
    settle: () => inFlight.catch(() => undefined),
  };
}

/** Stores one chunk; returns how many of its entries were rejected (card or duplicate). */
async function storeChunk(s: StoreContext, entries: BatchEntry[], copyFirst: boolean): Promise<number> {
  if (entries.length === 0) return 0;
  const { ctx, ack } = s;
  const cards = await s.cards.resolve(s.tx, ctx.merchantId, entries.map((e) => e.paymentMethod));
  const rows: OrderRow[] = [];
  let rejected = 0;
  for (let i = 0; i < entries.length; i++) {
    const card = cards[i]!;
    const entry = entries[i]!;
    const errors = cardErrors(card, entry);
    if (errors.length > 0 || 'errors' in card) {
      rejected++;
      await ack.reject({ sequenceNumber: entry.sequenceNumber, orderId: entry.orderId, errors });
    } else rows.push(orderRow(entry, card.token, ctx));
  }
  const inserted = await insertOrders(s.tx, rows, { copyFirst });
  // The ack names the order of every accepted entry; rows are in sequenceNumber order.
  await ack.accept(rows.filter((r) => inserted.has(r.id!)).map((r) => ({ sequenceNumber: r.sequenceNumber ?? null, orderId: r.orderId, orderSessionKey: r.id! })));
  const duplicates = rows.filter((r) => !inserted.has(r.id!));
  if (duplicates.length > 0) rejected += await rejectDuplicates(s, duplicates);
  return rejected;
}

async function rejectDuplicates(s: StoreContext, rows: OrderRow[]): Promise<number> {
  const clashes = await findOrderClashes(s.tx, s.ctx.merchantId, rows.map((r) => r.orderId), rows.map((r) => r.idempotencyKey));
  for (const row of rows) {
    const clash = clashes.find((c) => c.orderId === row.orderId || c.idempotencyKey === row.idempotencyKey);
    const field = clash && clash.orderId !== row.orderId ? 'idempotencyKey' : 'orderId';
    const where =
      clash?.batchId === s.ctx.batchId ? `repeats sequenceNumber ${clash.sequenceNumber} of this file` : 'was already used by an earlier order of this merchant';
    await s.ack.reject({
      sequenceNumber: row.sequenceNumber ?? null,
      orderId: row.orderId,
      errors: [{ field, code: 'ERR_INTAKE_DUPLICATE_ORDER', message: `This ${field} ${where}.` }],
    });
  }
  return rows.length;
}
