// The staged ingest of a large file (docs/sftp-and-batches.md "Large files: staged ingest"):
// its orders are due while the rest of it is still being stored, instead of all of them at
// one commit at the end of a transaction that held the whole file.
//
// 1. The whole file is read and checked first (whole-file.ts; the caller, with the header and
//    the duplicate check): what rejects a file whole is known before anything is stored, so
//    DESIGN.md §2's "nothing kept" holds as before.
// 2. Under the file's lock (a session lock held across the transactions), the batch row is
//    committed as `ingesting`; then the entries, a transaction at a time (COMMIT_ENTRIES or
//    COMMIT_MS), each also writing the batch row's counts. A committed order is SUBMITTED: the
//    engine can attempt it at once. A transaction whose COPY failed is stored again the
//    careful way, that transaction's entries only.
// 3. The last transaction sets the batch's status; then the ack (once, for the whole file)
//    and the input's fate. A crash leaves the file in inbound/ and the batch `ingesting`: the
//    next ingest of it finds the row, re-derives the ack's lines of the committed entries by
//    reading them again (staged-source.ts, reconcileStore) and goes on from the first entry
//    not committed — one batch row, each entry stored once.
import { createHash } from 'node:crypto';
import type { DbOrTx } from '../db/client.ts';
import { findIngestedBatch, insertBatch, updateBatchCounts, type BatchRow } from '../db/queries/batches.ts';
import { closeIngesting, recordChunk } from '../db/queries/staged-batches.ts';
import { sqlState } from '../sqlstate.ts';
import type { AckLines, PassTwoCounts } from './chunk-store.ts';
import type { EntryContext } from './entries.ts';
import { countsOf, FileHandledElsewhere, inputFate, statusOf, type FileRun, type Stored } from './one-pass.ts';
import { reconcileStore, threadSource, type FileRange, type StagedChunk, type StagedSource } from './staged-source.ts';
import type { WholeFile } from './whole-file.ts';

/**
 * Entries per transaction, or the time one may take, whichever comes first. 10,000 entries
 * are a few hundred milliseconds of COPY: the commit's own cost (a WAL flush, the batch row)
 * stays under 1% of it, and a crash re-reads at most that many. The second bound keeps the
 * first orders due within about a second on a slow store (PGlite, full card numbers).
 */
export const COMMIT_ENTRIES = 10_000;
export const COMMIT_MS = 1000;

export interface StagedInput {
  whole: WholeFile;
  expiryDateUtc: string | undefined;
  /** The file's entries from a position on: the intake worker's (PostgreSQL) or this thread's. */
  source: StagedSource<StagedChunk>;
  /** Where a transaction's entries are read again (the careful way, or to resume). */
  range: Omit<FileRange, 'to'>;
  /** On PostgreSQL: a failed COPY is stored again the careful way; PGlite stores that way already. */
  redoCarefully: boolean;
}

/** Processes without a session lock (PGlite's one process): a lock of this process only. */
const heldHere = new Set<bigint>();
async function lockHere(key: bigint): Promise<(() => Promise<void>) | undefined> {
  if (heldHere.has(key)) return undefined;
  heldHere.add(key);
  return async () => void heldHere.delete(key);
}

const lockKey = (merchantId: string, fileName: string) => createHash('sha256').update(`intake-file\0${merchantId}/${fileName}`).digest().readBigInt64BE(0);

/**
 * The merchant's batch of this SHA-256 that a crash left `ingesting` under this file's name
 * (the ingest resumes it); any other batch of it makes the file a duplicate (run.refuseIngested throws).
 */
export async function resumable(run: FileRun, db: DbOrTx, sha256: string): Promise<BatchRow | undefined> {
  const existing = await findIngestedBatch(db, run.file.merchantId, sha256);
  if (existing?.status === 'ingesting' && existing.fileName === run.file.name) return existing;
  await run.refuseIngested(db, sha256);
  return undefined;
}

interface Staged {
  run: FileRun;
  input: StagedInput;
  batchId: string;
  ctx: EntryContext;
  counts: PassTwoCounts;
  total: number;
}

export async function ingestStaged(run: FileRun, input: StagedInput): Promise<Stored> {
  const { deps, file } = run;
  const release = await (deps.tryLock ?? lockHere)(lockKey(file.merchantId, file.name));
  if (!release) throw new FileHandledElsewhere(file.name);
  try {
    return await stagedUnderLock(run, input);
  } finally {
    await release();
  }
}

async function stagedUnderLock(run: FileRun, input: StagedInput): Promise<Stored> {
  const { deps, file } = run;
  const { whole } = input;
  // Checked again under the lock: another instance may have ingested the file since.
  const existing = await resumable(run, deps.db, whole.sha256);
  const receivedAt = existing?.receivedAt ?? run.receivedAt;
  const batchId = existing?.id ?? crypto.randomUUID();
  if (!existing) {
    // A batch still ingesting under this name is of another file (another SHA-256): the file a
    // crash interrupted was replaced before its ingest could resume. Its batch ends with the
    // entries it holds (its results file then follows its orders) instead of staying open.
    const replaced = await closeIngesting(deps.db, file.merchantId, file.name);
    if (replaced.length > 0) run.log.warn({ batches: replaced }, 'a replaced file\'s interrupted batch ended with the entries it had committed');
    await insertBatch(deps.db, { id: batchId, merchantId: file.merchantId, fileName: file.name, sha256: whole.sha256, status: 'ingesting', entryCount: whole.entryCount, acceptedCount: 0, rejectedCount: 0, receivedAt });
  }
  const from = existing ? existing.acceptedCount + existing.rejectedCount : 0;
  try {
    return await stageEntries(run, input, { existing, receivedAt, batchId, from });
  } catch (err) {
    // Past the batch row, nothing rejects the file whole any more (its entries are kept):
    // whatever stopped the ingest is a failure the queue tries again, which resumes it.
    if (deps.signal?.aborted) throw err;
    throw new Error(`the staged ingest of ${file.name} stopped; it resumes at its next try: ${(err as Error).message}`, { cause: err });
  }
}

async function stageEntries(run: FileRun, input: StagedInput, b: { existing: BatchRow | undefined; receivedAt: Date; batchId: string; from: number }): Promise<Stored> {
  const { deps, file, ack, progress } = run;
  const { whole } = input;
  const { existing, receivedAt, batchId, from } = b;
  await progress.start({ batchId, merchantId: file.merchantId, fileName: file.name, entryCount: whole.entryCount, startedAt: receivedAt });
  run.log.info({ batchId, entries: whole.entryCount, sha256: whole.sha256, resumedAt: existing ? from : undefined }, 'batch ingest started');
  const ctx: EntryContext = { merchantId: file.merchantId, batchId, mode: deps.mode, defaultExpiryDateUtc: input.expiryDateUtc, now: receivedAt, clockSkewMs: deps.clockSkewMs, owner: run.owner };
  const st: Staged = { run, input, batchId, ctx, counts: { entries: 0, accepted: 0, rejected: 0, carriedCardNumbers: false }, total: whole.entryCount };
  if (from > 0) await storeAll(st, reconcileStore(threadSource({ ...input.range, to: from }, false), new Set()), 0, false);
  await storeAll(st, input.source, from, input.redoCarefully);
  const { counts } = st;
  counts.entries = whole.entryCount;
  const status = statusOf(counts.accepted, counts.rejected);
  const input_ = inputFate(status, counts.carriedCardNumbers || whole.sawCardNumber);
  const finishedAt = run.now();
  await deps.db.transaction(async (tx) => {
    await updateBatchCounts(tx, batchId, { status, entryCount: counts.entries, acceptedCount: counts.accepted, rejectedCount: counts.rejected });
    await ack.finish({ file: file.name, mid: file.mid, receivedAt: receivedAt.toISOString(), sha256: whole.sha256, batchId, finishedAt: finishedAt.toISOString(), status, counts: countsOf(counts), input: input_ });
    await progress.end(tx);
  });
  return { batchId, sha256: whole.sha256, status, counts, input: input_ };
}

/** Stores `source`'s chunks from the entry `from` on, a transaction at a time. */
async function storeAll<C extends StagedChunk>(st: Staged, source: StagedSource<C>, from: number, redoCarefully: boolean): Promise<void> {
  source.start(st.ctx, from);
  try {
    let next = await source.next();
    while (next) {
      const group = { upTo: st.counts.entries, next: next as C | undefined, taken: false };
      try {
        await commitGroup(st, source, group);
      } catch (err) {
        if (!redoCarefully || sqlState(err) === undefined) throw err;
        st.run.log.info({ batchId: st.batchId, from: st.counts.entries, to: group.upTo, code: sqlState(err) }, 'a chunk\'s COPY failed; its entries are stored the careful way');
        await storeAll(st, threadSource({ ...st.input.range, to: group.upTo }, false), st.counts.entries, false);
        if (group.taken) group.next = await source.next();
      }
      next = group.next;
    }
  } finally {
    await source.close();
  }
}

/**
 * One transaction: chunks until COMMIT_ENTRIES or COMMIT_MS, the batch row's counts, the
 * commit; then (only then) the ack's lines and the counts of the whole ingest move on.
 * `group.next` is left at the chunk after the transaction's ( `taken`: none fetched yet).
 */
async function commitGroup<C extends StagedChunk>(st: Staged, source: StagedSource<C>, group: { upTo: number; next: C | undefined; taken: boolean }): Promise<void> {
  const { run } = st;
  const { deps } = run;
  const limit = deps.stagedCommitEntries ?? COMMIT_ENTRIES;
  const start = { entries: st.counts.entries, at: performance.now() };
  const lines = new HeldLines();
  const counts = await deps.db.transaction(async (tx) => {
    const counts = { ...st.counts };
    const store = source.store({ tx, cards: deps.cards, ctx: st.ctx, ack: lines, counts, budget: st.input.range.budget });
    while (group.next && counts.entries - start.entries < limit && performance.now() - start.at < COMMIT_MS) {
      const chunk = group.next;
      group.upTo = chunk.upTo;
      group.taken = true;
      await store.send(chunk);
      group.next = await source.next();
      group.taken = false;
    }
    await store.finish();
    await recordChunk(tx, st.batchId, { acceptedCount: counts.accepted, rejectedCount: counts.rejected });
    return counts;
  });
  st.counts = counts;
  await lines.replay(run.ack);
  await run.progress.update(counts);
  await deps.onChunkCommitted?.({ batchId: st.batchId, entries: counts.entries, accepted: counts.accepted, rejected: counts.rejected, total: st.total });
}

/** A transaction's ack lines, written to the ack once it committed (a rolled-back one writes none). */
class HeldLines implements AckLines {
  private readonly held: Array<(ack: AckLines) => Promise<void>> = [];
  async accept(entries: Parameters<AckLines['accept']>[0]): Promise<void> {
    if (entries.length > 0) this.held.push((ack) => ack.accept(entries));
  }
  async reject(entry: Parameters<AckLines['reject']>[0], position?: number): Promise<void> {
    this.held.push((ack) => ack.reject(entry, position));
  }
  async replay(ack: AckLines): Promise<void> {
    for (const line of this.held) await line(ack);
  }
}
