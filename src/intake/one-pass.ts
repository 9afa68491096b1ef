// The file read once: from its first entries on, each entry is parsed, checked and stored as
// it is read, in the file's transaction, while the same read takes the SHA-256, the header,
// the entry count, the bounds and the card-number scan (reader.ts). What a separate first
// pass used to decide before storing anything is decided at the end instead, before the
// commit: a file rejected whole (its structure, a bound, a duplicate of an ingested file)
// rolls back, and nothing is kept — the acceptance rules of DESIGN.md §2 are unchanged.
//
// It starts only when the header before `requests` is complete and authorised. It gives way
// to a second read (ingest.ts), the file rolled back, when what it assumed turns out wrong:
// a header value after the entries (they were checked without it), a COPY that failed (a
// duplicate order, or a value the table refuses: the careful store names or raises it), an
// entry that is not valid JSON (the rest of the file is still read: a broken structure
// further on, or a duplicate file, is what the ack must report first).
import { randomUUID } from 'node:crypto';
import type { DbOrTx, Transaction as Tx } from '../db/client.ts';
import { insertBatch } from '../db/queries/batches.ts';
import { claimBatchFile } from '../db/queries/claim-batch-file.ts';
import { rawClient } from '../db/queries/insert-orders.ts';
import { sqlState } from '../sqlstate.ts';
import type { Logger } from '../log.ts';
import type { AckStatus, AckSummary, AckWriter } from './ack.ts';
import { carefulStore, type PassTwoCounts, type StoreContext } from './chunk-store.ts';
import { copyStore } from './store-copy.ts';
import { EntrySyntaxError, streamEntries } from './pass-two.ts';
import type { BatchReader, EntryItem } from './reader.ts';
import type { IntakeProgress } from './progress.ts';
import type { IntakeDeps, IntakeFile } from './types.ts';
import type { WorkerRead } from './worker-read.ts';
import { encodedStore } from './store-encoded.ts';

export const DEFAULT_CHUNK = 1000;

/** Why the single read gave way: the file is read again, the careful way. */
export class SecondReadNeeded extends Error {
  readonly reason: 'header' | 'store' | 'entry';
  readonly entryError: EntrySyntaxError | undefined;
  constructor(reason: SecondReadNeeded['reason'], entryError?: EntrySyntaxError) {
    super(`the file is read again (${reason})`);
    this.reason = reason;
    this.entryError = entryError;
  }
}

export interface FileRun {
  deps: IntakeDeps;
  file: IntakeFile;
  ack: AckWriter;
  progress: IntakeProgress;
  log: Logger;
  receivedAt: Date;
  now: () => Date;
  /** Checks for an ingested file of the same SHA-256, under the file's lock. */
  refuseIngested(tx: DbOrTx, sha256: string): Promise<void>;
  /** The file's merchant, whose ids its entries must name. */
  owner: { mid: string; siteIds: ReadonlySet<string> };
}

export interface Stored {
  batchId: string;
  sha256: string;
  status: AckStatus;
  counts: PassTwoCounts;
  input: AckSummary['input'];
}

export function statusOf(accepted: number, rejected: number): AckStatus {
  if (accepted === 0) return 'rejected';
  return rejected === 0 ? 'accepted' : 'partially_accepted';
}

/**
 * In the file's transaction, with `first` the entries already read and `expiryDateUtc` the
 * header's: stores the whole file, or throws SecondReadNeeded (or the rejection) to roll back.
 */
export async function ingestOnce(tx: Tx, run: FileRun, reader: BatchReader, first: EntryItem[], expiryDateUtc: string | undefined): Promise<Stored> {
  const { deps, file, ack, progress, receivedAt } = run;
  if (!(await claimBatchFile(tx, file.merchantId, file.name))) throw new FileHandledElsewhere(file.name);
  const batchId = randomUUID();
  const entryCount = reader.estimatedEntries();
  await progress.start({ batchId, merchantId: file.merchantId, fileName: file.name, entryCount, startedAt: receivedAt });
  run.log.info({ entries: entryCount, read: 'once' }, 'batch ingest started');
  const ctx = { merchantId: file.merchantId, batchId, mode: deps.mode, defaultExpiryDateUtc: expiryDateUtc, now: receivedAt, clockSkewMs: deps.clockSkewMs, owner: run.owner };
  const counts: PassTwoCounts = { entries: 0, accepted: 0, rejected: 0, carriedCardNumbers: false };
  const s: StoreContext = { tx, cards: deps.cards, ctx, ack, counts, progress: (c) => progress.update(c), budget: reader.budget };
  // PostgreSQL (the driver's `unsafe`) takes COPY; PGlite stores the careful way, in this thread anyway.
  const fast = typeof rawClient(tx).unsafe === 'function';
  const store = fast ? copyStore(s) : carefulStore(s, { copyFirst: false });
  try {
    await streamEntries(reader, store, { ctx, ack, counts, chunkSize: deps.chunkSize ?? DEFAULT_CHUNK, signal: deps.signal }, first);
  } catch (err) {
    if (err instanceof EntrySyntaxError) throw new SecondReadNeeded('entry', err);
    if (fast && sqlState(err) !== undefined) throw new SecondReadNeeded('store');
    throw err;
  }
  return stored(tx, run, reader, batchId, counts);
}

/** What the single read needs of its reader once the entries are stored. */
type ReadEnd = Pick<BatchReader, 'headerAfterEntries' | 'summary' | 'sawCardNumber'>;

/** After the last entry: the decisions a first pass used to make, the batch row, the ack. */
async function stored(tx: Tx, run: FileRun, reader: ReadEnd, batchId: string, counts: PassTwoCounts): Promise<Stored> {
  const { file, ack, progress, receivedAt } = run;
  if (reader.headerAfterEntries) throw new SecondReadNeeded('header');
  const { sha256 } = reader.summary();
  await run.refuseIngested(tx, sha256);
  const status = statusOf(counts.accepted, counts.rejected);
  await insertBatch(tx, {
    id: batchId, merchantId: file.merchantId, fileName: file.name, sha256, status,
    entryCount: counts.entries, acceptedCount: counts.accepted, rejectedCount: counts.rejected, receivedAt, finishedAt: run.now(),
  });
  const input = inputFate(status, counts.carriedCardNumbers || reader.sawCardNumber);
  await ack.finish({ file: file.name, mid: file.mid, receivedAt: receivedAt.toISOString(), sha256, batchId, finishedAt: run.now().toISOString(), status, counts: countsOf(counts), input });
  await progress.end(tx);
  return { batchId, sha256, status, counts, input };
}

/**
 * ingestOnce with the entries parsed, checked and encoded by the intake worker (worker-read.ts),
 * on PostgreSQL: the same decisions, the same ack, this thread only sending.
 */
export async function ingestOnceInWorker(tx: Tx, run: FileRun, read: WorkerRead, expiryDateUtc: string | undefined): Promise<Stored> {
  const { deps, file, progress, receivedAt } = run;
  if (!(await claimBatchFile(tx, file.merchantId, file.name))) throw new FileHandledElsewhere(file.name);
  const batchId = randomUUID();
  const entryCount = read.estimatedEntries();
  await progress.start({ batchId, merchantId: file.merchantId, fileName: file.name, entryCount, startedAt: receivedAt });
  run.log.info({ entries: entryCount, read: 'once', worker: true }, 'batch ingest started');
  const ctx = { merchantId: file.merchantId, batchId, mode: deps.mode, defaultExpiryDateUtc: expiryDateUtc, now: receivedAt, clockSkewMs: deps.clockSkewMs, owner: run.owner };
  const counts: PassTwoCounts = { entries: 0, accepted: 0, rejected: 0, carriedCardNumbers: false };
  const store = encodedStore({ tx, cards: deps.cards, ctx, ack: run.ack, counts, progress: (c) => progress.update(c), budget: read.budget });
  read.parse(ctx, deps.chunkSize ?? DEFAULT_CHUNK, WORKER_DEPTH);
  try {
    for (let chunk = await read.nextChunk(); chunk; chunk = await read.nextChunk()) {
      deps.signal?.throwIfAborted();
      await store.send(chunk);
    }
    await store.finish();
  } catch (err) {
    if (err instanceof EntrySyntaxError) throw new SecondReadNeeded('entry', err);
    if (sqlState(err) !== undefined) throw new SecondReadNeeded('store');
    throw err;
  }
  counts.entries = read.summary().entryCount;
  return stored(tx, run, read, batchId, counts);
}

/** Chunks the worker may have encoded ahead of the one being sent. */
const WORKER_DEPTH = 3;

/**
 * Archived only when it held no card number in clear and some entry was accepted: of a file
 * rejected whole nothing is kept (its ack holds the diagnosis, the merchant holds the file).
 */
export const inputFate = (status: AckStatus, carded: boolean): AckSummary['input'] => (carded || status === 'rejected' ? 'deleted' : 'archived');

export const countsOf = (c: PassTwoCounts) => ({ entries: c.entries, accepted: c.accepted, rejected: c.rejected });

/**
 * Another replica holds this file (it sees the same inbound folder): it writes the ack and
 * moves the file, so this one leaves both alone.
 */
export class FileHandledElsewhere extends Error {
  constructor(file: string) {
    super(`${file} is being ingested, or was just ingested, by another instance`);
  }
}
