// Intake of one complete batch file, as DESIGN.md §2 decides: a file that is not valid JSON,
// whose header is invalid or unauthorised, or that was already ingested is rejected whole —
// nothing kept; otherwise each entry is accepted or rejected on its own. Accepted entries
// become SUBMITTED orders in ONE transaction, so a crash at any point leaves either the whole
// file or nothing, and the file (still in inbound/) is ingested again from the start.
//
// A large file (1 MiB or more) is the exception: it is checked whole first, then committed in
// chunks so its first orders are due during its ingest, and a crash resumes it (staged.ts).
//
// The file is read once (one-pass.ts): stored as it is read, decided at the end. Only when
// that single read gives way (a header after the entries, a header that is not usable before
// them, a failed COPY, an entry that is not valid JSON) is the file, by then fully read and
// checked, read a second time and stored the careful way.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Db, DbOrTx as Tx } from '../db/client.ts';
import { validateBatchHeader } from '../domain/index.ts';
import { findIngestedBatch, insertBatch, updateBatchCounts } from '../db/queries/batches.ts';
import { claimBatchFile } from '../db/queries/claim-batch-file.ts';
import { AckWriter, type AckSummary, type FileError } from './ack.ts';
import { rejectWhole } from './reject.ts';
import { BatchSyntaxError } from './scanner.ts';
import { INTAKE_ERRORS } from './codes.ts';
import { streamEntries } from './pass-two.ts';
import { carefulStore, type PassTwoCounts } from './chunk-store.ts';
import { archiveInput } from './archive.ts';
import { DEFAULT_LIMITS, IntakeLimitError } from './limits.ts';
import { batchEntries } from '../metrics.ts';
import type { IntakeDeps, IntakeFile } from './types.ts';
import { intakeProgress } from './progress.ts';
import { BatchReader, type ReadSummary } from './reader.ts';
import { countsOf, DEFAULT_CHUNK, FileHandledElsewhere, ingestOnce, ingestOnceInWorker, inputFate, SecondReadNeeded, statusOf, type FileRun, type Stored } from './one-pass.ts';
import { MemoryBudget, type FileBudget } from './budget.ts';
import { siteIdsOf } from '../db/queries/find-merchant.ts';
import { rawClient } from '../db/queries/insert-orders.ts';
import { WorkerRead } from './worker-read.ts';
import { readWhole, type WholeFile } from './whole-file.ts';
import { ingestStaged, resumable } from './staged.ts';
import { threadSource, workerSource, type StagedChunk, type StagedSource } from './staged-source.ts';

/** Files from this size on are parsed in the intake worker (IntakeDeps.workerMinBytes). */
const WORKER_MIN_BYTES = 1024 * 1024;

export { FileHandledElsewhere } from './one-pass.ts';

export interface IntakeResult extends AckSummary {
  ackPath: string;
}

class FileRejection extends Error {
  readonly fileError: FileError;
  constructor(code: keyof typeof INTAKE_ERRORS, message?: string, position?: Pick<FileError, 'offset' | 'line' | 'column'>, errors?: FileError['errors']) {
    super(message ?? INTAKE_ERRORS[code].message);
    this.fileError = { code, message: this.message, ...position, ...(errors ? { errors } : {}) };
  }
}

const syntaxRejection = (err: BatchSyntaxError) =>
  new FileRejection('ERR_INTAKE_SYNTAX', `The file is not valid JSON: ${err.message}. Nothing was kept.`, { offset: err.offset, line: err.line, column: err.column });

const limitRejection = (err: IntakeLimitError) =>
  new FileRejection(err.code, `${INTAKE_ERRORS[err.code].message.replace(/; nothing was kept\.$/, '')}: ${err.message}; nothing was kept.`);

async function checkHeader(deps: IntakeDeps, file: IntakeFile, raw: Record<string, unknown>): Promise<{ expiryDateUtc: string | undefined }> {
  const header = validateBatchHeader(raw);
  if (!header.ok) throw new FileRejection('ERR_INTAKE_HEADER_INVALID', undefined, undefined, header.errors);
  if (header.value.mid.toLowerCase() !== file.mid.toLowerCase()) {
    throw new FileRejection('ERR_INTAKE_UNAUTHORIZED', 'The mid in the file is not the merchant of this SFTP account. Nothing was kept.');
  }
  try {
    await deps.tokens.verify(header.value.authorizationToken, { expectedMid: file.mid });
  } catch (err) {
    throw new FileRejection('ERR_INTAKE_UNAUTHORIZED', `authorizationToken is not accepted: ${(err as Error).message} Nothing was kept.`);
  }
  return { expiryDateUtc: header.value.expiryDateUtc };
}

/**
 * A file with the SHA-256 of an ingested batch is a duplicate — unless it is that very file,
 * placed before that batch finished, which another replica ingested and is about to move.
 */
async function refuseIngested(db: Db | Tx, file: IntakeFile, sha256: string, placedAt: Date): Promise<void> {
  const existing = await findIngestedBatch(db, file.merchantId, sha256);
  if (!existing) return;
  if (existing.fileName === file.name && placedAt <= existing.finishedAt) throw new FileHandledElsewhere(file.name);
  throw new FileRejection('ERR_INTAKE_DUPLICATE_FILE', `${INTAKE_ERRORS.ERR_INTAKE_DUPLICATE_FILE.message} (batch ${existing.id}, ${existing.fileName})`);
}

type Attempt = { stored: Stored } | { again: SecondReadNeeded };

/** The single read: stores the file as it is read, or reads it to its end and says why not. */
async function readOnce(run: FileRun, reader: BatchReader): Promise<Attempt> {
  const first = await reader.next();
  const header = first && !reader.headerAfterEntries ? await checkHeader(run.deps, run.file, reader.header).catch(() => undefined) : undefined;
  if (!first || !header) {
    // Read to the end as the first pass did: what it finds (or the header in full) decides.
    await reader.drain();
    return { again: new SecondReadNeeded('header') };
  }
  try {
    return { stored: await run.deps.db.transaction((tx) => ingestOnce(tx, run, reader, first, header.expiryDateUtc)) };
  } catch (err) {
    if (!(err instanceof SecondReadNeeded)) throw err;
    await run.progress.abandon();
    await run.ack.discard();
    await reader.drain();
    return { again: err };
  }
}

/** The single read with the entries parsed in the intake worker (worker-read.ts): as readOnce. */
async function readOnceInWorker(run: FileRun, read: WorkerRead): Promise<Attempt> {
  const { hasEntries } = await read.first();
  const header = hasEntries && !read.headerAfterEntries ? await checkHeader(run.deps, run.file, read.header).catch(() => undefined) : undefined;
  if (!header) {
    await read.drain();
    return { again: new SecondReadNeeded('header') };
  }
  try {
    return { stored: await run.deps.db.transaction((tx) => ingestOnceInWorker(tx, run, read, header.expiryDateUtc)) };
  } catch (err) {
    if (!(err instanceof SecondReadNeeded)) throw err;
    await run.progress.abandon();
    await run.ack.discard();
    await read.drain();
    return { again: err };
  }
}

/**
 * Whether this file's entries are parsed in the intake worker: on PostgreSQL (COPY), for a
 * file large enough that the worker's start (tens of milliseconds) is nothing beside it.
 */
function inWorker(deps: IntakeDeps, fileBytes: number): boolean {
  return typeof rawClient(deps.db).unsafe === 'function' && fileBytes >= (deps.workerMinBytes ?? WORKER_MIN_BYTES);
}

/**
 * Whether this file is ingested in stages (staged.ts): read whole first, then committed a
 * chunk at a time, its orders due before its end. The files parsed in the intake worker on
 * PostgreSQL; on PGlite, files as large, on this thread.
 */
function staged(deps: IntakeDeps, fileBytes: number): boolean {
  return fileBytes >= (deps.workerMinBytes ?? WORKER_MIN_BYTES);
}

/** A large file: checked whole (the header, a duplicate), then stored in stages. */
async function ingestLarge(run: FileRun, budget: FileBudget, fileBytes: number, seen: { sha256: string; worker?: WorkerRead }): Promise<Stored> {
  const { deps, file } = run;
  const limits = deps.limits ?? DEFAULT_LIMITS;
  const pg = typeof rawClient(deps.db).unsafe === 'function';
  const range = { path: file.path, name: file.name, limits, budget, chunkSize: deps.chunkSize ?? DEFAULT_CHUNK };
  let whole: WholeFile;
  let source: StagedSource<StagedChunk>;
  const started = performance.now();
  if (pg) {
    const read = (seen.worker = new WorkerRead(file.path, file.name, limits, fileBytes, budget, true));
    run.ack.measureInput(() => read.unpackedBytes);
    whole = await read.checked();
    source = workerSource(read, range.chunkSize);
  } else {
    const reader = new BatchReader(file.path, file.name, limits, { fileBytes, scanCards: true, budget });
    run.ack.measureInput(() => reader.unpackedBytes);
    whole = await readWhole(reader);
    source = threadSource(range, false);
  }
  seen.sha256 = whole.sha256;
  run.log.info({ entries: whole.entryCount, ms: Math.round(performance.now() - started), worker: pg }, 'batch file checked whole');
  // As the careful read: a duplicate first, then the header.
  await resumable(run, deps.db, whole.sha256);
  const { expiryDateUtc } = await checkHeader(deps, file, whole.header);
  return ingestStaged(run, { whole, expiryDateUtc, source, range, redoCarefully: pg });
}

/** The second read, the careful way, once the whole file has been read and checked. */
async function readAgain(run: FileRun, budget: FileBudget, pre: ReadSummary, expiryDateUtc: string | undefined, copyFirst: boolean, carded: boolean): Promise<Stored> {
  const { deps, file, ack, progress, receivedAt } = run;
  const batchId = randomUUID();
  return deps.db.transaction(async (tx) => {
    if (!(await claimBatchFile(tx, file.merchantId, file.name))) throw new FileHandledElsewhere(file.name);
    // Checked again under the lock: a replica may have committed this file since the check before.
    await run.refuseIngested(tx, pre.sha256);
    await insertBatch(tx, { id: batchId, merchantId: file.merchantId, fileName: file.name, sha256: pre.sha256, status: 'accepted', entryCount: 0, acceptedCount: 0, rejectedCount: 0, receivedAt });
    await progress.start({ batchId, merchantId: file.merchantId, fileName: file.name, entryCount: pre.entryCount, startedAt: receivedAt });
    run.log.info({ entries: pre.entryCount, sha256: pre.sha256, read: 'twice' }, 'batch ingest started');
    const ctx = { merchantId: file.merchantId, batchId, mode: deps.mode, defaultExpiryDateUtc: expiryDateUtc, now: receivedAt, clockSkewMs: deps.clockSkewMs, owner: run.owner };
    const counts: PassTwoCounts = { entries: 0, accepted: 0, rejected: 0, carriedCardNumbers: false };
    const store = carefulStore({ tx, cards: deps.cards, ctx, ack, counts, progress: (c) => progress.update(c), budget }, { copyFirst });
    const reader = new BatchReader(file.path, file.name, deps.limits ?? DEFAULT_LIMITS, { budget });
    ack.measureInput(() => reader.unpackedBytes);
    await streamEntries(reader, store, { ctx, ack, counts, chunkSize: deps.chunkSize ?? DEFAULT_CHUNK, signal: deps.signal });
    const status = statusOf(counts.accepted, counts.rejected);
    await updateBatchCounts(tx, batchId, { status, entryCount: counts.entries, acceptedCount: counts.accepted, rejectedCount: counts.rejected });
    const input = inputFate(status, counts.carriedCardNumbers || carded);
    await ack.finish({ file: file.name, mid: file.mid, receivedAt: receivedAt.toISOString(), sha256: pre.sha256, batchId, finishedAt: run.now().toISOString(), status, counts: countsOf(counts), input });
    await progress.end(tx);
    return { batchId, sha256: pre.sha256, status, counts, input };
  });
}

export async function ingestFile(deps: IntakeDeps, file: IntakeFile): Promise<IntakeResult> {
  const now = deps.now ?? (() => new Date());
  const receivedAt = now();
  // deps.log is the intake stage's child (component: 'intake'); a file adds its own fields.
  const log = deps.log.child({ mid: file.mid, file: file.name });
  const base = { file: file.name, mid: file.mid, receivedAt: receivedAt.toISOString() };
  const limits = deps.limits ?? DEFAULT_LIMITS;
  // Everything this file holds in memory, from the header to the ack's lists (budget.ts).
  const budget = (deps.budget ?? new MemoryBudget(limits.memoryBytes)).forFile(limits.fileMemoryBytes);
  let sha256 = '';
  let owner: FileRun['owner'] | undefined;
  let fileBytes: number | undefined;
  // A staged ingest's committed batch row is its progress for other processes: no progress row beside it.
  const newRun = (refuse: FileRun['refuseIngested'], fileOwner: FileRun['owner'], besideTransaction = deps.progressBesideTransaction ?? false): FileRun => ({
    deps, file, log, receivedAt, now, refuseIngested: refuse, owner: fileOwner,
    ack: new AckWriter(file.outboundDir, file.name, budget),
    progress: intakeProgress(deps.db, besideTransaction, log, file.mid),
  });
  let run: FileRun | undefined;
  let reader: BatchReader | WorkerRead | undefined;
  let worker: WorkerRead | undefined;
  try {
    const placed = await stat(file.path);
    fileBytes = placed.size;
    const refuse = (tx: Tx, sha: string) => refuseIngested(tx, file, sha, placed.mtime);
    owner = { mid: file.mid, siteIds: await siteIdsOf(deps.db, file.merchantId) };
    if (staged(deps, placed.size)) {
      run = newRun(refuse, owner, false);
      const seen: { sha256: string; worker?: WorkerRead } = { sha256: '' };
      try {
        return await published(deps, file, run, await ingestLarge(run, budget, placed.size, seen), base);
      } finally {
        sha256 = seen.sha256;
        worker = seen.worker;
      }
    }
    run = newRun(refuse, owner);
    let attempt: Attempt;
    if (inWorker(deps, placed.size)) {
      const read = new WorkerRead(file.path, file.name, limits, placed.size, budget);
      reader = worker = read;
      run.ack.measureInput(() => read.unpackedBytes);
      attempt = await readOnceInWorker(run, read);
    } else {
      const first = new BatchReader(file.path, file.name, limits, { fileBytes: placed.size, scanCards: true, budget });
      reader = first;
      run.ack.measureInput(() => first.unpackedBytes);
      attempt = await readOnce(run, first);
    }
    let stored: Stored;
    if ('stored' in attempt) stored = attempt.stored;
    else {
      const pre = reader.summary();
      sha256 = pre.sha256;
      await refuseIngested(deps.db, file, sha256, placed.mtime);
      const { expiryDateUtc } = await checkHeader(deps, file, pre.header);
      const { reason, entryError } = attempt.again;
      // Nothing after the entries changed what they were checked with: the entry's error stands.
      if (entryError && !reader.headerAfterEntries) throw syntaxRejection(entryError);
      if (reason !== 'header') log.info({ reason }, 'batch file read a second time');
      run = newRun(refuse, owner);
      stored = await readAgain(run, budget, pre, expiryDateUtc, reason !== 'store', reader.sawCardNumber);
    }
    return await published(deps, file, run, stored, base);
  } catch (err) {
    await run?.progress.abandon();
    await run?.ack.discard();
    if (err instanceof FileHandledElsewhere) throw err;
    // Gone while this instance was starting on it: another replica took it (and answers it).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (err as NodeJS.ErrnoException).path === file.path) throw new FileHandledElsewhere(file.name);
    if (!sha256 && reader?.done) sha256 = reader.summary().sha256;
    const rejection = err instanceof FileRejection ? err : err instanceof BatchSyntaxError ? syntaxRejection(err) : err instanceof IntakeLimitError ? limitRejection(err) : undefined;
    if (!rejection) throw err;
    // The ack, the input removed, and a rejected batch row so the listings say why (reject.ts).
    const rejected = await rejectWhole(deps.db, log, file, rejection.fileError, { sha256, receivedAt, finishedAt: now(), bytes: fileBytes ?? null });
    log.warn({ code: rejection.fileError.code, line: rejection.fileError.line, column: rejection.fileError.column }, 'batch rejected');
    return rejected;
  } finally {
    await worker?.close();
    budget.close();
  }
}

/** After the commit: the ack under its name, the metrics, the input archived or deleted. */
async function published(deps: IntakeDeps, file: IntakeFile, run: FileRun, s: Stored, base: Pick<AckSummary, 'file' | 'mid' | 'receivedAt'>): Promise<IntakeResult> {
  const ackPath = await run.ack.publish();
  batchEntries.inc({ result: 'accepted' }, s.counts.accepted);
  batchEntries.inc({ result: 'rejected' }, s.counts.rejected);
  await archiveInput(deps.archiveDir, file, { batchId: s.batchId, deleteInstead: s.input === 'deleted' });
  const finishedAt = run.now();
  run.log.info({ batchId: s.batchId, status: s.status, entries: s.counts.entries, accepted: s.counts.accepted, rejected: s.counts.rejected, ms: finishedAt.getTime() - run.receivedAt.getTime() }, 'batch ingested');
  return { ...base, sha256: s.sha256, batchId: s.batchId, finishedAt: finishedAt.toISOString(), status: s.status, counts: countsOf(s.counts), input: s.input, ackPath };
}

