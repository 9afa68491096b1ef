// Where a staged ingest (staged.ts) takes its entries from, a chunk at a time, and how one
// transaction stores them:
// - `workerSource`: PostgreSQL, a file parsed, checked and encoded by the intake worker
//   (parse-worker.ts), stored by COPY (store-encoded.ts);
// - `threadSource`: the entries of a range of positions read, parsed and checked on this
//   thread, stored the careful way (chunk-store.ts) — PGlite's way, PostgreSQL's for a
//   transaction whose COPY failed, and, with `reconcileStore`, the re-reading of the entries
//   a crashed ingest had already committed.
import type { BatchEntry } from '../domain/index.ts';
import { storedOrdersOf } from '../db/queries/staged-batches.ts';
import type { RejectedEntry } from './ack.ts';
import type { FileBudget } from './budget.ts';
import { carefulStore, type StoreContext } from './chunk-store.ts';
import type { EntryContext } from './entries.ts';
import type { IntakeLimits } from './limits.ts';
import { parseItem } from './pass-two.ts';
import { BatchReader, type EntryItem } from './reader.ts';
import { encodedStore } from './store-encoded.ts';
import type { WorkerRead } from './worker-read.ts';
import type { ChunkMessage } from './parse-protocol.ts';

/** Entries decided through this chunk: chunks are contiguous, so the next starts here. */
export interface StagedChunk {
  upTo: number;
}

/** One transaction's store: chunks sent, then `finish` confirms them (or throws their failure). */
export interface TxStore<C> {
  send(chunk: C): Promise<void>;
  finish(): Promise<void>;
}

export interface StagedSource<C extends StagedChunk> {
  /** The parse starts at the entry `from` (the first one not committed). */
  start(ctx: EntryContext, from: number): void;
  /** The next chunk, or undefined past the last entry (of the range). */
  next(): Promise<C | undefined>;
  store(s: StoreContext): TxStore<C>;
  close(): Promise<void>;
}

/** Chunks the worker may have encoded ahead of the one being sent. */
const WORKER_DEPTH = 3;

type WorkerChunk = ChunkMessage & StagedChunk;

export function workerSource(read: WorkerRead, chunkSize: number): StagedSource<WorkerChunk> {
  return {
    start: (ctx, from) => read.parse(ctx, chunkSize, WORKER_DEPTH, from),
    async next() {
      const m = await read.nextChunk();
      return m && { ...m, upTo: m.entryCount };
    },
    store(s) {
      const store = encodedStore(s);
      return { send: (chunk) => store.send(chunk), finish: () => store.finish() };
    },
    close: async () => {},
  };
}

export interface ThreadChunk extends StagedChunk {
  rejected: Array<{ entry: RejectedEntry; position: number }>;
  entries: BatchEntry[];
  cost: number;
  carriedCardNumbers: boolean;
}

export interface FileRange {
  path: string;
  name: string;
  limits: IntakeLimits;
  budget: FileBudget;
  chunkSize: number;
  /** Past the last position read (undefined: to the end of the file). */
  to?: number;
}

/** The entries of [from, range.to) read on this thread; `copyFirst` as carefulStore's. */
export function threadSource(range: FileRange, copyFirst: boolean): StagedSource<ThreadChunk> {
  // A range of a file whose whole read took its SHA-256 already.
  const reader = new BatchReader(range.path, range.name, range.limits, { budget: range.budget, hash: false });
  let ctx: EntryContext | undefined;
  let from = 0;
  let items: EntryItem[] = [];
  let at = 0;
  let ended = false;
  const item = async (): Promise<EntryItem | undefined> => {
    for (;;) {
      if (ended) return undefined;
      if (at < items.length) {
        const it = items[at++]!;
        if (it.index < from) {
          range.budget.release(it.cost);
          continue;
        }
        if (range.to === undefined || it.index < range.to) return it;
        // Past the range: what is left of this slice goes back, and the file is closed.
        reader.release(items.slice(at - 1));
        ended = true;
        await reader.close();
        return undefined;
      }
      const read = await reader.next();
      if (!read) ended = true;
      else [items, at] = [read, 0];
    }
  };
  return {
    start(c, f) {
      [ctx, from] = [c, f];
    },
    async next() {
      const chunk: ThreadChunk = { upTo: from, rejected: [], entries: [], cost: 0, carriedCardNumbers: false };
      while (chunk.entries.length + chunk.rejected.length < range.chunkSize) {
        const it = await item();
        if (!it) break;
        chunk.upTo = it.index + 1;
        const outcome = parseItem(it, ctx!, range.budget);
        if (!outcome.ok) chunk.rejected.push({ entry: outcome.rejected, position: it.index + 1 });
        else {
          if (outcome.entry.paymentMethod.token === false) chunk.carriedCardNumbers = true;
          chunk.entries.push(outcome.entry);
          chunk.cost += it.cost;
        }
      }
      from = chunk.upTo;
      return chunk.upTo > 0 && chunk.entries.length + chunk.rejected.length > 0 ? chunk : undefined;
    },
    store: (s) => threadStore(s, (store, chunk) => store.push(chunk.entries, chunk.cost), copyFirst),
    async close() {
      if (!ended) await reader.close();
      ended = true;
    },
  };
}

type Push = (store: ReturnType<typeof carefulStore>, chunk: ThreadChunk, s: StoreContext) => Promise<void>;

function threadStore(s: StoreContext, push: Push, copyFirst: boolean): TxStore<ThreadChunk> {
  const store = carefulStore(s, { copyFirst });
  return {
    async send(chunk) {
      for (const r of chunk.rejected) {
        s.counts.rejected++;
        await s.ack.reject(r.entry, r.position);
      }
      if (chunk.carriedCardNumbers) s.counts.carriedCardNumbers = true;
      s.counts.entries = chunk.upTo;
      await push(store, chunk, s);
    },
    finish: () => store.finish(),
  };
}

/**
 * The store of a resumed ingest for the entries its crashed run had committed: an entry whose
 * order this batch holds (its orderId and sequenceNumber; the first entry to name it, as the
 * first was the one stored) is accepted as that order; any other is stored the careful way,
 * which finds again why it was rejected (its card, a duplicate). Nothing is stored twice, and
 * the ack's lines for them are derived again instead of being kept anywhere.
 */
export function reconcileStore(source: StagedSource<ThreadChunk>, claimed: Set<string>): StagedSource<ThreadChunk> {
  const push: Push = async (store, chunk, s) => {
    const stored = await storedOrdersOf(s.tx, s.ctx.merchantId, s.ctx.batchId, chunk.entries.map((e) => e.orderId));
    const rest: BatchEntry[] = [];
    const accepted = [];
    for (const e of chunk.entries) {
      const order = stored.get(e.orderId);
      if (order && order.sequenceNumber === (e.sequenceNumber ?? null) && !claimed.has(order.id)) {
        claimed.add(order.id);
        accepted.push({ sequenceNumber: order.sequenceNumber, orderId: e.orderId, orderSessionKey: order.id });
      } else rest.push(e);
    }
    s.counts.accepted += accepted.length;
    await s.ack.accept(accepted);
    await store.push(rest, chunk.cost);
  };
  return { ...source, store: (s) => threadStore(s, push, false) };
}
