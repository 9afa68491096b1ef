// The progress of the file being ingested, for `batches list|show`, GET /v1/batches and the
// console: its batch and orders appear only at the commit, so until then something else says
// how far pass two has come.
//
// Always: this process's board (progress-board.ts), in memory, updated after every chunk.
// In-process readers take it from there, on both databases, without a statement — on PGlite
// the file's transaction holds the only connection, and a statement would wait for it.
//
// Also, where a write can run beside an open transaction (PostgreSQL with a pool of two or
// more): a batch_progress row, written on another connection and committed at once, at most
// once a second, for the readers of other processes (a CLI run with its own connection,
// another replica). The file's commit removes it, and a rollback leaves it to `abandon`. A
// failed write costs only the figure, never the file.
import type { Db, Transaction } from '../db/client.ts';
import { endProgress, startProgress, updateProgress } from '../db/queries/batch-progress.ts';
import type { Logger } from '../log.ts';
import { progressBoard, type ProgressBoard } from './progress-board.ts';

/** At most one row update a second: a round trip per second is nothing beside the chunks' own. */
const MIN_INTERVAL_MS = 1000;

export interface ProgressStart {
  batchId: string;
  merchantId: string;
  fileName: string;
  entryCount: number;
  startedAt: Date;
}

export interface IntakeProgress {
  /** Called under the file's lock, once its batch id is known. */
  start(row: ProgressStart): Promise<void>;
  /** The counts so far: on the board at once; in the row when a second has passed since its last write. */
  update(counts: { accepted: number; rejected: number }): Promise<void>;
  /** Inside the file's transaction, just before its commit: the row goes with the commit. */
  end(tx: Transaction): Promise<void>;
  /** After the transaction failed: the row written beside it would otherwise stay. */
  abandon(): Promise<void>;
}

const NO_ROW: IntakeProgress = { start: async () => {}, update: async () => {}, end: async () => {}, abandon: async () => {} };

function progressRow(db: Db, log: Logger, now: () => number): IntakeProgress {
  let batchId: string | undefined;
  let last = 0;
  const tryWrite = async (what: string, write: () => Promise<void>) => {
    try {
      await write();
    } catch (err) {
      log.warn({ err, batchId }, `batch progress not ${what}; the file's ingest goes on`);
    }
  };
  return {
    async start(row) {
      batchId = row.batchId;
      last = now();
      await tryWrite('recorded', () => startProgress(db, row));
    },
    async update(counts) {
      if (!batchId || now() - last < MIN_INTERVAL_MS) return;
      last = now();
      const id = batchId;
      await tryWrite('updated', () => updateProgress(db, id, counts));
    },
    async end(tx) {
      if (batchId) await endProgress(tx, batchId);
      batchId = undefined;
    },
    async abandon() {
      const id = batchId;
      batchId = undefined;
      if (id) await tryWrite('removed', () => endProgress(db, id));
    },
  };
}

/** `mid`: the file's merchant as the board shows it. */
export function intakeProgress(db: Db, besideTransaction: boolean, log: Logger, mid: string, now: () => number = Date.now, board: ProgressBoard = progressBoard(db)): IntakeProgress {
  const row = besideTransaction ? progressRow(db, log, now) : NO_ROW;
  let batchId: string | undefined;
  return {
    async start(start) {
      batchId = start.batchId;
      board.begin(start, mid);
      await row.start(start);
    },
    async update(counts) {
      if (batchId) board.update(batchId, counts);
      await row.update(counts);
    },
    async end(tx) {
      // Still shown until the intake queue settles the file: the batch row replaces it at the commit.
      if (batchId) board.end(batchId);
      await row.end(tx);
    },
    async abandon() {
      if (batchId) board.drop(batchId);
      batchId = undefined;
      await row.abandon();
    },
  };
}
