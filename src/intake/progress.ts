// The progress of the file being ingested, for `batches list|show` and GET /v1/batches: its
// batch and orders appear only at the commit, so until then a batch_progress row says how
// far pass two has come. The row is written beside the file's transaction, on another
// connection, and committed at once, so every session sees it move; the file's commit
// removes it, and a rollback leaves it to `abandon`. A failed write costs only the figure,
// never the file.
//
// Only where a write can run beside an open transaction: PostgreSQL with a pool of two or
// more. On PGlite (one session) or a pool of one, a write beside the file's transaction
// would wait for it, and every reader waits for it too — nobody could see a figure before
// the commit — so nothing is written there.
import type { Db, Transaction } from '../db/client.ts';
import { endProgress, startProgress, updateProgress } from '../db/queries/batch-progress.ts';
import type { Logger } from '../log.ts';

/** At most one update a second: a round trip per second is nothing beside the chunks' own. */
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
  /** The counts so far; written when a second has passed since the last write. */
  update(counts: { accepted: number; rejected: number }): Promise<void>;
  /** Inside the file's transaction, just before its commit: the row goes with the commit. */
  end(tx: Transaction): Promise<void>;
  /** After the transaction failed: the row written beside it would otherwise stay. */
  abandon(): Promise<void>;
}

const NO_PROGRESS: IntakeProgress = { start: async () => {}, update: async () => {}, end: async () => {}, abandon: async () => {} };

export function intakeProgress(db: Db, besideTransaction: boolean, log: Logger, now: () => number = Date.now): IntakeProgress {
  if (!besideTransaction) return NO_PROGRESS;
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
