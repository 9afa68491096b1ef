// Pass two: every entry the reader cuts out is parsed, normalised and checked by the model,
// rejected into the ack or handed to a chunk store (chunk-store.ts, store-copy.ts). The store
// works on one chunk while this parses the next: the event loop is given a turn about every
// millisecond, so the database's answers are taken up while a chunk is being parsed.
import type { BatchEntry } from '../domain/index.ts';
import { BatchSyntaxError, MAX_TEXT_BYTES } from './scanner.ts';
import { checkEntry, type EntryContext } from './entries.ts';
import type { AckWriter, RejectedEntry } from './ack.ts';
import type { FileBudget } from './budget.ts';
import type { BatchReader, EntryItem } from './reader.ts';
import type { ChunkStore, PassTwoCounts } from './chunk-store.ts';

export type { PassTwoCounts } from './chunk-store.ts';

/** How long parsing may hold the event loop: a database answer waits at most this long. */
const TURN_MS = 1;
/**
 * A chunk is handed to the store at `chunkSize` entries or at this share of the file's memory
 * budget, whichever comes first: the store holds a few chunks at once (store-copy.ts, DEPTH),
 * so entries of any size stay inside the budget by construction.
 */
const CHUNK_BUDGET_SHARE = 8;

export interface EntryRun {
  ctx: EntryContext;
  ack: AckWriter;
  counts: PassTwoCounts;
  chunkSize: number;
  signal?: AbortSignal | undefined;
}

/** An entry with a text no field can hold (scanner.ts, MAX_TEXT_BYTES): not parsed. */
const LONG_TEXT = {
  sequenceNumber: null,
  orderId: null,
  errors: [{ field: '', code: 'ERR_MODEL_FORMAT', message: `holds a key or value longer than ${MAX_TEXT_BYTES} bytes, which no field of the request model is: the entry was not read` }],
};

/** JSON.parse refused an entry (the structure around entries is the reader's to check). */
export class EntrySyntaxError extends BatchSyntaxError {}

/** Where JSON.parse found a problem inside an entry, in the file's coordinates. */
function entrySyntaxError(item: EntryItem, err: Error): EntrySyntaxError {
  const pos = Number(/at position (\d+)/.exec(err.message)?.[1] ?? 0);
  const before = item.text.slice(0, pos);
  const newlines = before.split('\n').length - 1;
  const column = newlines ? pos - before.lastIndexOf('\n') : item.column + pos;
  const reason = err.message.replace(/ in JSON at position.*$/, '').replace(/, ".*" is not valid JSON$/, '');
  return new EntrySyntaxError(`entry ${item.index + 1}: ${reason}`, item.offset + Buffer.byteLength(before), item.line + newlines, column);
}

/**
 * Throws the EntrySyntaxError JSON.parse's refusal of the entry gives; nothing else is checked
 * (the acceptance pre-pass, whole-file.ts: an entry that is not JSON rejects the file whole).
 */
export function checkSyntax(item: EntryItem): void {
  if (item.longText) return;
  try {
    JSON.parse(item.text);
  } catch (err) {
    throw entrySyntaxError(item, err as Error);
  }
}

/**
 * Reads the rest of the file's entries into `store` (`first`: entries already taken from the
 * reader). Throws a BatchSyntaxError for an entry that is not valid JSON, after letting the
 * chunks in flight settle, so nothing reaches the connection after the rollback.
 */
export async function streamEntries(reader: BatchReader, store: ChunkStore, run: EntryRun, first?: EntryItem[]): Promise<void> {
  try {
    await parseInto(reader, store, run, first);
  } catch (err) {
    await store.settle();
    throw err;
  }
  await store.finish();
}

export type ParsedItem = { ok: true; entry: BatchEntry } | { ok: false; rejected: RejectedEntry };

/**
 * One entry the reader cut out: parsed and checked. A rejected one gives its memory back at
 * once; an accepted one holds it until stored. Throws an EntrySyntaxError for JSON.parse's refusal.
 */
export function parseItem(item: EntryItem, ctx: EntryContext, budget: FileBudget): ParsedItem {
  if (item.longText) {
    budget.release(item.cost);
    return { ok: false, rejected: LONG_TEXT };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(item.text);
  } catch (err) {
    throw entrySyntaxError(item, err as Error);
  }
  const outcome = checkEntry(raw, item.index + 1, ctx, item.text);
  if (!outcome.ok) {
    budget.release(item.cost);
    return { ok: false, rejected: outcome.rejected };
  }
  return outcome;
}

/** The share of the file's memory budget at which a chunk is handed over, whatever its count. */
export const chunkCostOf = (budget: FileBudget) => budget.limit / CHUNK_BUDGET_SHARE;

async function parseInto(reader: BatchReader, store: ChunkStore, run: EntryRun, first: EntryItem[] | undefined): Promise<void> {
  const { ctx, ack, counts } = run;
  const budget = reader.budget;
  const chunkCost = chunkCostOf(budget);
  let pending: BatchEntry[] = [];
  let pendingCost = 0;
  let turn = performance.now();
  for (let items = first ?? (await reader.next()); items; items = await reader.next()) {
    run.signal?.throwIfAborted();
    for (const item of items) {
      counts.entries++;
      const outcome = parseItem(item, ctx, budget);
      if (!outcome.ok) {
        counts.rejected++;
        await ack.reject(outcome.rejected, item.index + 1);
        continue;
      }
      if (outcome.entry.paymentMethod.token === false) counts.carriedCardNumbers = true;
      pending.push(outcome.entry);
      pendingCost += item.cost;
      if (pending.length >= run.chunkSize || pendingCost >= chunkCost) {
        await store.push(pending, pendingCost);
        pending = [];
        pendingCost = 0;
      }
      if (performance.now() - turn >= TURN_MS) {
        await new Promise(setImmediate);
        turn = performance.now();
      }
    }
  }
  await store.push(pending, pendingCost);
}
