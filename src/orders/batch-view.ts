// How a batch is shown, alike by GET /v1/batches[/{id}] and `rescued batches list|show`: the
// batch row's counts (the ack's), the files it produced, and — for one batch — what became
// of its orders; a file still being ingested shows its progress instead.
//
// The files this process is ingesting come from its progress board (src/intake/progress-board.ts),
// never from a statement: on PGlite the file's transaction holds the only connection. While
// it does, the stored part of an answer is the one the board remembers (read again just
// before the ingest began; nothing else can commit until the file does); a first page never
// asked for before shows the files being ingested alone, and its nextCursor leads to every
// stored batch (that page waits for the commit).
import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/client.ts';
import { compile } from '../domain/formats.ts';
import { fromAjv } from '../domain/field-errors.ts';
import type { FieldError } from '../error-types.ts';
import { RescuedError } from '../errors.ts';
import { batchFigures, type StatusFigure } from '../db/queries/batch-figures.ts';
import { findBatch, listBatches, listProgress, type BatchKey, type BatchListRow, type ProgressListRow } from '../db/queries/list-batches.ts';
import { ackName } from '../intake/ack.ts';
import { progressBoard, type IngestingFile } from '../intake/progress-board.ts';
import { resultsName } from '../outbound/results.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Orders the engine has not finished: the batch's results file waits for them. */
const OPEN = new Set(['SUBMITTED', 'PENDING', 'PROCESSING']);

export type BatchStatus = 'ingesting' | 'accepted' | 'partially_accepted' | 'rejected';

export function progressSummary(p: ProgressListRow | IngestingFile) {
  const decided = p.acceptedCount + p.rejectedCount;
  return {
    batchId: p.batchId,
    mid: p.mid,
    fileName: p.fileName,
    status: 'ingesting' as BatchStatus,
    receivedAt: p.startedAt.toISOString(),
    finishedAt: null,
    entries: p.entryCount,
    accepted: p.acceptedCount,
    rejected: p.rejectedCount,
    ackFile: null,
    resultsFile: null,
    progress: { decided, percent: p.entryCount ? Math.floor((decided * 100) / p.entryCount) : 0, updatedAt: p.updatedAt.toISOString() },
    error: null,
    bytes: null,
  };
}

export function batchSummary(b: BatchListRow) {
  // A large file stored in stages (src/intake/staged.ts): its row counts the entries committed so far.
  const ingesting = b.status === 'ingesting';
  const decided = b.acceptedCount + b.rejectedCount;
  return {
    batchId: b.id,
    mid: b.mid,
    fileName: b.fileName,
    status: b.status as BatchStatus,
    receivedAt: b.receivedAt.toISOString(),
    finishedAt: ingesting ? null : iso(b.finishedAt),
    entries: b.entryCount,
    accepted: b.acceptedCount,
    rejected: b.rejectedCount,
    ackFile: ingesting ? null : ackName(b.fileName),
    resultsFile: b.resultsWrittenAt ? resultsName(b.fileName) : null,
    progress: ingesting ? { decided, percent: b.entryCount ? Math.floor((decided * 100) / b.entryCount) : 0, updatedAt: b.finishedAt.toISOString() } : null,
    // A file rejected whole: the ack's reason (src/intake/reject.ts).
    error: b.errorCode ? { code: b.errorCode, message: b.errorMessage ?? '' } : null,
    bytes: b.fileBytes,
  };
}

export type BatchSummary = ReturnType<typeof batchSummary> | ReturnType<typeof progressSummary>;

/** The batch's orders by state, and the approved amount by currency (minor units). */
export function orderFigures(figures: StatusFigure[]) {
  const orders = { pending: 0, approved: 0, expired: 0, cancelled: 0 };
  const recovered = new Map<string, number>();
  for (const f of figures) {
    if (OPEN.has(f.status)) orders.pending += f.count;
    else if (f.status === 'APPROVED') {
      orders.approved += f.count;
      recovered.set(f.currency, (recovered.get(f.currency) ?? 0) + f.amount);
    } else if (f.status === 'EXPIRED') orders.expired += f.count;
    else if (f.status === 'CANCELLED') orders.cancelled += f.count;
  }
  return { orders, recovered: [...recovered].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amount]) => ({ currency, amount })) };
}

export type BatchDetail = BatchSummary & { orders: ReturnType<typeof orderFigures>['orders'] | null; recovered: ReturnType<typeof orderFigures>['recovered'] };

const refOf = (ref: string) => (UUID.test(ref) ? { id: ref.toLowerCase() } : { fileName: ref });

/** The id of a batch named by id or file name (the most recent of that name), without its figures. */
export async function batchIdFor(db: Db, ref: string, merchantId: string | undefined): Promise<string | undefined> {
  const found = await findBatch(db, refOf(ref), merchantId);
  return found && ('progress' in found ? found.progress.batchId : found.batch.id);
}

async function storedDetail(db: Db, ref: ReturnType<typeof refOf>, merchantId: string | undefined): Promise<BatchDetail | null> {
  const found = await findBatch(db, ref, merchantId);
  if (!found) return null;
  if ('progress' in found) return { ...progressSummary(found.progress), orders: null, recovered: [] };
  // A file rejected whole has no orders to count.
  if (found.batch.errorCode) return { ...batchSummary(found.batch), orders: null, recovered: [] };
  return { ...batchSummary(found.batch), ...orderFigures(await batchFigures(db, found.batch.id)) };
}

/**
 * One batch by id or file name (the most recent of that name), confined to `merchantId` when
 * given. A file this process is ingesting is answered from memory; a stored batch asked for
 * for the first time while an ingest holds the only connection waits for its commit.
 */
export async function batchDetail(db: Db, ref: string, merchantId: string | undefined): Promise<BatchDetail | undefined> {
  const board = progressBoard(db);
  const r = refOf(ref);
  const file = board.files(merchantId).find((f) => ('id' in r ? f.batchId === r.id : f.fileName === r.fileName));
  const fromMemory = (f: IngestingFile): BatchDetail => ({ ...progressSummary(f), orders: null, recovered: [] });
  if (file && (!file.endedAt || board.held())) return fromMemory(file);
  if (file) {
    // Committing: its batch row replaces it as soon as the commit is seen.
    const stored = await storedDetail(db, r, merchantId);
    return stored && stored.batchId === file.batchId && !stored.progress ? stored : fromMemory(file);
  }
  const remembered = await board.read(`batch ${merchantId ?? '*'} ${ref}`, () => storedDetail(db, r, merchantId));
  return (remembered ? remembered.value : await storedDetail(db, r, merchantId)) ?? undefined;
}

export const BatchListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Batches per page.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page.' })),
});

export type BatchListQuery = Static<typeof BatchListQuerySchema>;

const queryValidator = compile<BatchListQuery>(BatchListQuerySchema);

/** The query as sent (strings) → its typed value, or ERR_MODEL_INVALID; unknown keys are ignored. */
export function parseBatchQuery(raw: Record<string, unknown>): BatchListQuery {
  const input: Record<string, unknown> = {};
  if (raw.limit !== undefined && raw.limit !== '') input.limit = typeof raw.limit === 'string' && /^\d{1,9}$/.test(raw.limit) ? Number(raw.limit) : raw.limit;
  if (raw.cursor !== undefined && raw.cursor !== '') input.cursor = raw.cursor;
  if (queryValidator(input)) return input;
  const errors: FieldError[] = [];
  fromAjv(queryValidator.errors, errors);
  throw new RescuedError('ERR_MODEL_INVALID', `Invalid query: ${errors.map((e) => e.message).join(' ')}`, errors);
}

function batchKey(value: unknown): BatchKey | undefined {
  const v = value as Record<string, unknown>;
  const timeOk = typeof v.t === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(v.t);
  return timeOk && typeof v.i === 'string' && UUID.test(v.i) ? { receivedAt: v.t as string, id: v.i.toLowerCase() } : undefined;
}

/** Past every stored batch: the page it starts is the first page without the files being ingested. */
const TOP = encodeCursor({ t: '9999-12-31T23:59:59.999999Z', i: 'ffffffff-ffff-ffff-ffff-ffffffffffff' });

export interface BatchPage {
  batches: BatchSummary[];
  nextCursor: string | null;
  /**
   * Null: the stored batches were read now. Otherwise an ingest holds the only connection:
   * they are as the database stood at `asOf` (the start of the ingest), or left out (asOf null).
   */
  held: { asOf: string | null } | null;
}

async function storedPage(db: Db, merchantId: string | undefined, after: BatchKey | undefined, limit: number) {
  const rows = await listBatches(db, merchantId, after, limit + 1);
  // Another process's files (PostgreSQL): their batch_progress rows.
  const progress = after ? [] : await listProgress(db, merchantId);
  return { rows, progress };
}

/** This process's files (fresher than their rows), then other processes', less those already stored. */
function ingestingRows(board: IngestingFile[], rows: ProgressListRow[], stored: Set<string>): BatchSummary[] {
  const mine = new Set(board.map((f) => f.batchId));
  return [...board, ...rows.filter((p) => !mine.has(p.batchId))]
    .filter((p) => !stored.has(p.batchId))
    .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime())
    .map(progressSummary);
}

/**
 * A page of batches, newest first; the first page starts with the files being ingested now.
 * One more row than asked for is read, so the last page says so itself.
 */
export async function batchPage(db: Db, merchantId: string | undefined, limit: number, cursor: string | undefined): Promise<BatchPage> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, batchKey);
  const board = progressBoard(db);
  const files = after ? [] : board.files(merchantId);
  const read = () => storedPage(db, merchantId, after, limit);
  const remembered = await board.read(`batches ${merchantId ?? '*'} ${limit} ${cursor ?? ''}`, read);
  if (!remembered && !after) return { batches: ingestingRows(files, [], new Set()), nextCursor: TOP, held: { asOf: null } };
  const held = remembered && board.held() ? { asOf: remembered.asOf.toISOString() } : null;
  const { rows, progress } = remembered ? remembered.value : await read();
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  const ingesting = ingestingRows(files, progress, new Set(rows.map((b) => b.id)));
  return { batches: [...ingesting, ...page.map(batchSummary)], nextCursor: more && last ? encodeCursor({ t: last.receivedKey, i: last.id }) : null, held };
}
