// Pass two: every entry through the model into order rows, inserted in chunks inside the
// file's transaction. Parsing the next chunk overlaps the database's work on the last one.
import type { Transaction as Tx } from '../db/client.ts';
import type { BatchEntry } from '../domain/index.ts';
import { findOrderClashes, insertOrders } from '../db/queries/insert-orders.ts';
import { BatchScanner, BatchSyntaxError, type ScanItem } from './scanner.ts';
import { fileChunks, isGzip } from './prescan.ts';
import { checkEntry, orderRow, type EntryContext, type OrderRow } from './entries.ts';
import type { AckWriter } from './ack.ts';
import { checkSandboxPayerEmail } from '../vault/test-cards.ts';
import type { IntakeDeps, IntakeFile } from './types.ts';
import { DEFAULT_LIMITS } from './limits.ts';

export type { Transaction as Tx } from '../db/client.ts';

export interface PassTwoCounts {
  entries: number;
  accepted: number;
  rejected: number;
  carriedCardNumbers: boolean;
}

const DEFAULT_CHUNK = 1000;
/** Entries parsed between two turns of the event loop. */
const YIELD_EVERY = 50;

/** Where JSON.parse found a problem inside an entry, in the file's coordinates. */
function entrySyntaxError(item: Extract<ScanItem, { kind: 'entry' }>, err: Error): BatchSyntaxError {
  const pos = Number(/at position (\d+)/.exec(err.message)?.[1] ?? 0);
  const before = item.text.slice(0, pos);
  const newlines = before.split('\n').length - 1;
  const column = newlines ? pos - before.lastIndexOf('\n') : item.column + pos;
  const reason = err.message.replace(/ in JSON at position.*$/, '').replace(/, ".*" is not valid JSON$/, '');
  return new BatchSyntaxError(`entry ${item.index + 1}: ${reason}`, item.offset + Buffer.byteLength(before), item.line + newlines, column);
}

/** `progress` hears the counts after each stored chunk (intake progress, progress.ts). */
export async function streamEntries(
  tx: Tx, deps: IntakeDeps, file: IntakeFile, ack: AckWriter, ctx: EntryContext, progress?: (counts: PassTwoCounts) => Promise<void>,
): Promise<PassTwoCounts> {
  const counts: PassTwoCounts = { entries: 0, accepted: 0, rejected: 0, carriedCardNumbers: false };
  const chunkSize = deps.chunkSize ?? DEFAULT_CHUNK;
  let pending: BatchEntry[] = [];
  let inFlight: Promise<void> = Promise.resolve();

  const flush = async (entries: BatchEntry[]) => {
    const rejected = await storeChunk(tx, deps, ctx, entries, ack);
    counts.accepted += entries.length - rejected;
    counts.rejected += rejected;
    await progress?.(counts);
  };

  try {
    await scanEntries();
  } catch (err) {
    // The file's transaction ends when this throws: let the chunk in flight finish first, so
    // none of its statements reaches the connection after the rollback.
    await inFlight.catch(() => undefined);
    throw err;
  }
  await inFlight;
  await flush(pending);
  return counts;

  async function scanEntries(): Promise<void> {
    const limits = deps.limits ?? DEFAULT_LIMITS;
    const scanner = new BatchScanner(limits);
    for await (const chunk of fileChunks(file.path, isGzip(file.name), undefined, limits)) {
      deps.signal?.throwIfAborted();
      for (const item of scanner.push(chunk)) {
        if (item.kind !== 'entry') continue;
        counts.entries++;
        let raw: unknown;
        try {
          raw = JSON.parse(item.text);
        } catch (err) {
          throw entrySyntaxError(item, err as Error);
        }
        const outcome = checkEntry(raw, item.index + 1, ctx);
        if (!outcome.ok) {
          counts.rejected++;
          await ack.reject(outcome.rejected);
          continue;
        }
        if (outcome.entry.paymentMethod.token === false) counts.carriedCardNumbers = true;
        pending.push(outcome.entry);
        if (pending.length >= chunkSize) {
          await inFlight;
          inFlight = flush(pending);
          // Its failure is awaited later (above, or at the next chunk); until then it must not
          // count as unhandled, which would end the process.
          inFlight.catch(() => undefined);
          pending = [];
        } else if (pending.length % YIELD_EVERY === 0) {
          // A file chunk holds hundreds of entries, parsed without a pause; the chunk being
          // stored takes several round trips, each waiting for a turn of the event loop.
          await new Promise(setImmediate);
        }
      }
    }
    scanner.end();
  }
}

/** Stores one chunk; returns how many of its entries were rejected (card or duplicate). */
async function storeChunk(tx: Tx, deps: IntakeDeps, ctx: EntryContext, entries: BatchEntry[], ack: AckWriter): Promise<number> {
  if (entries.length === 0) return 0;
  const cards = await deps.cards.resolve(tx, ctx.merchantId, entries.map((e) => e.paymentMethod));
  const rows: OrderRow[] = [];
  let rejected = 0;
  for (let i = 0; i < entries.length; i++) {
    const card = cards[i]!;
    const entry = entries[i]!;
    const errors = 'errors' in card ? card.errors : [checkSandboxPayerEmail(card.testCard, entry.payer.email)].filter((e) => e !== undefined);
    if (errors.length > 0 || 'errors' in card) {
      rejected++;
      await ack.reject({ sequenceNumber: entry.sequenceNumber, orderId: entry.orderId, errors });
    } else rows.push(orderRow(entry, card.token, ctx));
  }
  const inserted = await insertOrders(tx, rows);
  // The ack names the order of every accepted entry; rows are in sequenceNumber order.
  await ack.accept(rows.filter((r) => inserted.has(r.id!)).map((r) => ({ sequenceNumber: r.sequenceNumber ?? null, orderId: r.orderId, orderSessionKey: r.id! })));
  const duplicates = rows.filter((r) => !inserted.has(r.id!));
  if (duplicates.length > 0) rejected += await rejectDuplicates(tx, ctx, duplicates, ack);
  return rejected;
}

async function rejectDuplicates(tx: Tx, ctx: EntryContext, rows: OrderRow[], ack: AckWriter): Promise<number> {
  const clashes = await findOrderClashes(tx, ctx.merchantId, rows.map((r) => r.orderId), rows.map((r) => r.idempotencyKey));
  for (const row of rows) {
    const clash = clashes.find((c) => c.orderId === row.orderId || c.idempotencyKey === row.idempotencyKey);
    const field = clash && clash.orderId !== row.orderId ? 'idempotencyKey' : 'orderId';
    const where =
      clash?.batchId === ctx.batchId ? `repeats sequenceNumber ${clash.sequenceNumber} of this file` : 'was already used by an earlier order of this merchant';
    await ack.reject({
      sequenceNumber: row.sequenceNumber ?? null,
      orderId: row.orderId,
      errors: [{ field, code: 'ERR_INTAKE_DUPLICATE_ORDER', message: `This ${field} ${where}.` }],
    });
  }
  return rows.length;
}
