// The console's figures beside an ingest. The files this process is ingesting come from its
// progress board (src/intake/progress-board.ts), with counts that move after every chunk, on
// both databases. While an ingest holds PGlite's only connection, a statement would wait for
// the file's commit: the rest of an answer is then the one the board remembers (read again
// just before the ingest began, when someone had asked for it lately). A live poll never
// asked for before answers the files being ingested alone; the overview and the report
// JSON, never asked for before, wait for the commit.
import { findMerchantByMid } from '../../db/queries/find-merchant.ts';
import { RescuedError } from '../../errors.ts';
import { progressBoard, type IngestingFile, type ProgressBoard } from '../../intake/progress-board.ts';
import { liveFigures, recoveryReport } from '../../reports/recovery.ts';
import type { BatchProgress, RecoveryReport } from '../../reports/schema.ts';
import { parseSince } from '../../reports/since.ts';
import type { ConsoleDeps } from './deps.ts';

export type Query = { since?: unknown; merchant?: unknown; key?: unknown };

export const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

export async function scopeOf(deps: ConsoleDeps, q: Query) {
  const now = deps.clock.now();
  const since = parseSince(str(q.since) || undefined, now);
  const mid = str(q.merchant).toLowerCase();
  if (!mid) return { now, since, mid: null, merchantId: undefined };
  const merchant = /^[0-9a-f-]{36}$/.test(mid) ? await findMerchantByMid(deps.db, mid) : undefined;
  if (!merchant) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${mid.slice(0, 40)}.`);
  return { now, since, mid, merchantId: merchant.id };
}

function ingestingRow(f: IngestingFile): BatchProgress {
  const decided = f.acceptedCount + f.rejectedCount;
  return {
    batchId: f.batchId, phase: 'ingesting', fileName: f.fileName, mid: f.mid, receivedAt: f.startedAt.toISOString(),
    entries: f.entryCount, accepted: f.acceptedCount, rejected: f.rejectedCount, final: 0, approved: 0, expired: 0, cancelled: 0,
    progress: f.entryCount === 0 ? 0 : Math.min(1, decided / f.entryCount),
  };
}

/**
 * This process's files first (oldest first, as the report lists them; their counts are
 * fresher than any row), then the stored rows less those files and less a file whose batch
 * is already stored (committing).
 */
export function mergeBatches(files: IngestingFile[], stored: BatchProgress[]): BatchProgress[] {
  const storedIds = new Set(stored.filter((b) => b.phase !== 'ingesting').map((b) => b.batchId));
  const mine = files.filter((f) => !storedIds.has(f.batchId)).reverse();
  const mineIds = new Set(mine.map((f) => f.batchId));
  const others = stored.filter((b) => !mineIds.has(b.batchId));
  return [...mine.map(ingestingRow), ...others.filter((b) => b.phase === 'ingesting'), ...others.filter((b) => b.phase !== 'ingesting')];
}

const filesOf = (board: ProgressBoard, q: Query) => {
  const mid = str(q.merchant).toLowerCase();
  return board.files().filter((f) => !mid || f.mid === mid);
};

export interface LiveAnswer extends Partial<Awaited<ReturnType<typeof liveFigures>>> {
  generatedAt: string;
  batchesInProgress: BatchProgress[];
  /** While an ingest holds the only connection: when the queue and webhook figures were read (null: not shown). */
  heldAsOf?: string | null;
}

/** The live part of the overview, polled every few seconds. */
export async function liveAnswer(deps: ConsoleDeps, q: Query): Promise<LiveAnswer> {
  const board = progressBoard(deps.db);
  const read = async () => liveFigures(deps.db, await scopeOf(deps, { merchant: q.merchant }));
  const remembered = await board.read(`console live ${str(q.merchant).toLowerCase()}`, read);
  const files = filesOf(board, q);
  const generatedAt = deps.clock.now().toISOString();
  if (!remembered) return { generatedAt, batchesInProgress: mergeBatches(files, []), heldAsOf: null };
  const live = remembered.value;
  const held = board.held() ? { heldAsOf: remembered.asOf.toISOString() } : {};
  return { ...live, generatedAt: held.heldAsOf ? generatedAt : live.generatedAt, batchesInProgress: mergeBatches(files, live.batchesInProgress), ...held };
}

/** The recovery report with this process's files in it; waits for an ingest's commit only when never asked for before. */
export async function reportAnswer(deps: ConsoleDeps, q: Query): Promise<{ report: RecoveryReport; mid: string | null }> {
  const board = progressBoard(deps.db);
  const read = async () => {
    const scope = await scopeOf(deps, q);
    return { report: await recoveryReport(deps.db, scope), mid: scope.mid };
  };
  const remembered = await board.read(`console report ${str(q.since)} ${str(q.merchant).toLowerCase()}`, read);
  const { report, mid } = remembered ? remembered.value : await read();
  return { report: { ...report, batchesInProgress: mergeBatches(filesOf(board, q), report.batchesInProgress) }, mid };
}
