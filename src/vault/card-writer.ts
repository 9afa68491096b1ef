// Writes new cards to the vault table, several concurrent tokenize calls per statement.
// Each call still answers only after its own row is committed (nothing is acknowledged
// before it is durable); what is shared is the statement. Calls that reach the writer in
// the same turn of the event loop go together (the flush waits for setImmediate, not for a
// timer), and calls that arrive while a statement is in flight go in the next one. PGlite
// runs each statement synchronously inside the process, a millisecond or more whatever its
// size, so without this it caps tokenize at a few hundred calls/s
// (test/bench/tokenize.bench.ts).
import type { Db } from '../db/client.ts';
import { insertOrFindCards, type InsertedOrFound, type NewCardRow } from '../db/queries/insert-cards.ts';

export type CardWrite = InsertedOrFound;

export interface CardWriterOptions {
  /** Rows per statement. */
  maxBatch?: number;
  /** Statements in flight at once (1 for PGlite; more for a connection pool). */
  maxInFlight?: number;
}

interface Pending {
  row: NewCardRow;
  resolve: (w: CardWrite) => void;
  reject: (err: unknown) => void;
}

/** One statement for the batch; cards another transaction inserted meanwhile are read again. */
async function writeBatch(db: Db, rows: readonly NewCardRow[]): Promise<CardWrite[]> {
  const first = await insertOrFindCards(db, rows);
  const late = rows.filter((_, i) => first[i] === undefined);
  const again = late.length > 0 ? await insertOrFindCards(db, late) : [];
  let j = 0;
  return first.map((w) => {
    const write = w ?? again[j++];
    // Rows are never deleted, and a card skipped as a duplicate was committed by then.
    if (!write) throw new Error('a card row skipped as a duplicate could not be read back');
    return write;
  });
}

export function createCardWriter(db: Db, opts: CardWriterOptions = {}): (row: NewCardRow) => Promise<CardWrite> {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? 1;
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function flush(batch: Pending[]): Promise<void> {
    try {
      const writes = await writeBatch(db, batch.map((p) => p.row));
      batch.forEach((p, i) => p.resolve(writes[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // One bad row must not fail the calls that came with it: each goes again alone.
      await Promise.all(batch.map((p) => writeBatch(db, [p.row]).then((w) => p.resolve(w[0]!), p.reject)));
    }
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      inFlight++;
      void flush(queue.splice(0, maxBatch)).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return (row) =>
    new Promise<CardWrite>((resolve, reject) => {
      queue.push({ row, resolve, reject });
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        pump();
      });
    });
}
