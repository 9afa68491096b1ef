// The intake worker: one batch file read, parsed, checked and encoded for COPY in a thread of
// its own, with its own heap (docs/performance.md "Batch intake"). The daemon's thread keeps
// what needs the database or the outbound folder — the header's token, the card look-ups, the
// COPY on the file's transaction, the ack — and only sends. The work here is pure: bytes in,
// COPY text and rejected entries out; its garbage never reaches the daemon's heap, and on two
// cores it runs beside the daemon's thread and PostgreSQL.
//
// At most `depth` chunks wait to be taken (a credit comes back for each), so the memory
// budget, shared with the daemon's thread (budget.ts), still bounds what the file holds.
import { parentPort, workerData } from 'node:worker_threads';
import type { BatchEntry } from '../domain/index.ts';
import { CopyBytes, orderRecord } from '../db/queries/copy-orders.ts';
import { carriesFullNumber } from '../vault/full-number.ts';
import { orderRow, type EntryContext } from './entries.ts';
import { BatchReader, type EntryItem } from './reader.ts';
import { readWhole } from './whole-file.ts';
import { FileBudget } from './budget.ts';
import { chunkCostOf, EntrySyntaxError, parseItem } from './pass-two.ts';
import { toWire, type ChunkMessage, type EncodedRows, type FromWorker, type OpenFile, type ReadState, type ToWorker } from './parse-protocol.ts';

const port = parentPort!;
const open = workerData as OpenFile;
const budget = FileBudget.attach(open.budget);
// The read whose state is reported: the file's one read, or in a staged ingest its check first.
let reader = new BatchReader(open.path, open.name, open.limits, { fileBytes: open.fileBytes, scanCards: true, budget });

// A chunk's COPY bytes are moved, not copied (copy-orders.ts, CopyBytes).
const post = (m: FromWorker) => port.postMessage(m, m.type === 'chunk' && m.rows ? [m.rows.bytes.buffer as ArrayBuffer] : []);
const state = (): ReadState => ({
  header: reader.header, headerAfterEntries: reader.headerAfterEntries, entryCount: reader.entryCount, unpackedBytes: reader.unpackedBytes, estimatedEntries: reader.estimatedEntries(),
});

// Messages from the daemon's thread, as a queue the steps below wait on.
const inbox: ToWorker[] = [];
let wake: (() => void) | undefined;
port.on('message', (m: ToWorker) => {
  inbox.push(m);
  wake?.();
});
async function receive(): Promise<ToWorker> {
  while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  wake = undefined;
  return inbox.shift()!;
}

const noRows = (ctx: EntryContext): EncodedRows => ({ bytes: new Uint8Array(0), ids: [], sequenceNumbers: [], orderIds: [], tokens: [], emails: ctx.mode === 'sandbox' ? [] : undefined });

/**
 * The accepted entries of the chunk being made. Each is encoded as it is parsed, so the entry,
 * its row and its request are garbage while still young (holding 10,000 parsed entries until
 * the chunk was full had them survive collections). A full card number's token is known only
 * once the vault has it, on the daemon's thread: from such an entry on, the chunk keeps entries.
 */
class PendingRows {
  count = 0;
  cost = 0;
  private readonly copy = new CopyBytes();
  private rows: EncodedRows;
  private entries: BatchEntry[] | undefined;
  private readonly ctx: EntryContext;
  constructor(ctx: EntryContext) {
    this.ctx = ctx;
    this.rows = noRows(ctx);
  }

  /** Whether `entry` can join the rows encoded so far (else they go first, as a chunk of their own). */
  fits(entry: BatchEntry): boolean {
    return this.entries !== undefined || this.count === 0 || !carriesFullNumber(entry.paymentMethod);
  }

  add(e: BatchEntry, cost: number): void {
    this.count++;
    this.cost += cost;
    if (!this.entries && this.count === 1 && carriesFullNumber(e.paymentMethod)) this.entries = [];
    if (this.entries) return void this.entries.push(e);
    const row = orderRow(e, e.paymentMethod.cardNumber, this.ctx);
    this.copy.add(orderRecord(row));
    const { rows } = this;
    rows.ids.push(row.id!);
    rows.sequenceNumbers.push(row.sequenceNumber ?? null);
    rows.orderIds.push(row.orderId);
    rows.tokens.push(e.paymentMethod.cardNumber);
    rows.emails?.push(e.payer.email);
  }

  take(): Pick<ChunkMessage, 'rows' | 'entries' | 'cost'> {
    const taken = this.count === 0 ? { rows: undefined, entries: undefined } : this.entries ? { rows: undefined, entries: this.entries } : { rows: { ...this.rows, bytes: this.copy.take() }, entries: undefined };
    const cost = this.cost;
    [this.rows, this.entries, this.count, this.cost] = [noRows(this.ctx), undefined, 0, 0];
    return { ...taken, cost };
  }
}

/** `from`: entries before this position are skipped unparsed (a staged ingest resumed). */
async function parse(first: EntryItem[] | undefined, ctx: EntryContext, chunkSize: number, depth: number, from = 0): Promise<void> {
  const chunkCost = chunkCostOf(budget);
  let decided = from;
  let credits = depth;
  let carried = false;
  let chunk: ChunkMessage['rejected'] = [];
  const pending = new PendingRows(ctx);
  const flush = async () => {
    // Waits for a credit; an order to drain, waiting or not, ends the parse.
    while (credits === 0 || inbox.length > 0) {
      const m = await receive();
      if (m.type === 'credit') credits++;
      else if (m.type === 'drain') throw new DrainOrdered();
    }
    credits--;
    post({ type: 'chunk', rejected: chunk, ...pending.take(), entryCount: decided, carriedCardNumbers: carried, unpackedBytes: reader.unpackedBytes });
    chunk = [];
  };
  for (let items: EntryItem[] | undefined = first ?? (await reader.next()); items; items = await reader.next()) {
    for (const item of items) {
      if (item.index < from) {
        budget.release(item.cost);
        continue;
      }
      const outcome = parseItem(item, ctx, budget);
      if (!outcome.ok) chunk.push({ entry: outcome.rejected, position: item.index + 1 });
      else {
        // The chunk so far ends before this entry (`decided` is still the one before).
        if (!pending.fits(outcome.entry)) await flush();
        if (outcome.entry.paymentMethod.token === false) carried = true;
        pending.add(outcome.entry, item.cost);
      }
      decided = item.index + 1;
      if (pending.count >= chunkSize || pending.cost >= chunkCost || chunk.length >= chunkSize) await flush();
    }
  }
  if (pending.count > 0 || chunk.length > 0) await flush();
}

/** The daemon's thread gave up on storing this read (a failed COPY): the rest is drained. */
class DrainOrdered extends Error {}

/**
 * The staged ingest: the whole file checked first (whole-file.ts), then — once the daemon's
 * thread has decided to store it — read again from the entry `from` on, in chunks.
 */
async function staged(): Promise<void> {
  const whole = await readWhole(reader);
  post({ type: 'checked', sha256: whole.sha256, sawCardNumber: whole.sawCardNumber, ...state() });
  const order = await receive();
  if (order.type !== 'parse') return;
  // The card scan and the SHA-256 were the check's: this read only parses.
  reader = new BatchReader(open.path, open.name, open.limits, { fileBytes: open.fileBytes, budget, hash: false });
  try {
    await parse(undefined, order.ctx, order.chunkSize, order.depth, order.from);
  } catch (err) {
    if (!(err instanceof DrainOrdered)) throw err;
    await reader.drain();
  }
  post({ type: 'end', sha256: whole.sha256, sawCardNumber: whole.sawCardNumber, ...state() });
}

async function main(): Promise<void> {
  if (open.staged) return staged();
  const first = await reader.next();
  post({ type: 'first', hasEntries: first !== undefined, ...state() });
  const order = await receive();
  try {
    if (order.type !== 'parse') throw new DrainOrdered();
    await parse(first!, order.ctx, order.chunkSize, order.depth);
  } catch (err) {
    if (err instanceof EntrySyntaxError) {
      // The ack must first say what the rest of the file holds (ingest.ts): drained on order.
      post({ type: 'error', error: toWire(err), state: state() });
      while ((await receive()).type !== 'drain');
    } else if (!(err instanceof DrainOrdered)) throw err;
    if (order.type !== 'parse' && first) reader.release(first);
    await reader.drain();
  }
  const { sha256 } = reader.summary();
  post({ type: 'end', sha256, sawCardNumber: reader.sawCardNumber, ...state() });
}

main().catch((err: unknown) => post({ type: 'error', error: toWire(err), state: state() }));
