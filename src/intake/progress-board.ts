// The files this process is ingesting, in memory, and the readers' side of an ingest that
// holds the database's only connection.
//
// A file is ingested in one transaction. On PGlite (one session, the default) and on a
// PostgreSQL pool of one, that transaction holds the only connection: every other statement
// of the process waits for its commit, a progress row could not be written beside it, and a
// reader asking the database would wait as long. So the progress of a file is kept here, on
// every database, and in-process readers (the CLI through the daemon's socket, the API, the
// console) take it from here. While an ingest holds the connection they answer the rest —
// what only the database knows — from the last answer to the same question, which `holding`
// takes again just before the ingest starts: nothing else can commit until the file does, so
// that answer is the database as it stands. A question never asked before has no such answer.
//
// One board per database handle: intake reaches it through the handle it is given
// (src/intake/ingest.ts calls intakeProgress(deps.db, …)), readers through the one they use.
// It is state for display only; the record of a batch is its rows.
import type { Db } from '../db/client.ts';

export interface IngestingFile {
  batchId: string;
  merchantId: string;
  mid: string;
  fileName: string;
  entryCount: number;
  acceptedCount: number;
  rejectedCount: number;
  startedAt: Date;
  updatedAt: Date;
  /** Set when the file's transaction is about to commit: its batch row is on the way. */
  endedAt: Date | undefined;
}

export interface Remembered<T> {
  value: T;
  /** When it was read from the database. */
  asOf: Date;
}

/** Answers kept for the time an ingest holds the connection: a few listings, a few callers. */
const REMEMBERED_MAX = 64;
/** Answers read again before an ingest: those asked for within this time (someone is watching). */
const REFRESH_WITHIN_MS = 10 * 60_000;
/** A file ended (committing) is shown until the intake queue settles it, or this long at most. */
const ENDED_SHOWN_MS = 30_000;

interface Entry {
  value: unknown;
  asOf: Date;
  askedAt: number;
  read: () => Promise<unknown>;
}

export interface ProgressBoard {
  /** Files being ingested, newest first; only `merchantId`'s when given. */
  files(merchantId?: string): IngestingFile[];
  begin(row: { batchId: string; merchantId: string; fileName: string; entryCount: number; startedAt: Date }, mid: string): void;
  update(batchId: string, counts: { accepted: number; rejected: number }): void;
  /** The file's transaction is committing: shown until `settle` (its batch row replaces it). */
  end(batchId: string): void;
  /** The file's ingest failed: it disappears at once. */
  drop(batchId: string): void;
  /** The ingest of this file returned (committed or not): its row goes. */
  settle(merchantId: string, fileName: string): void;
  /** Whether an ingest holds the database's only connection now. */
  held(): boolean;
  /**
   * Runs `work` (an ingest on the only connection) with the connection marked held: the
   * remembered answers asked for lately are read again first, and reads already running are
   * waited for, so none of them is left behind the file's transaction.
   */
  holding<T>(work: () => Promise<T>): Promise<T>;
  /**
   * `read` from the database, remembered under `key`; while an ingest holds the connection,
   * the answer remembered instead (undefined when there is none) — never a wait.
   */
  read<T>(key: string, read: () => Promise<T>): Promise<Remembered<T> | undefined>;
}

export function createProgressBoard(now: () => number = Date.now): ProgressBoard {
  const files = new Map<string, IngestingFile>();
  const remembered = new Map<string, Entry>();
  const running = new Set<Promise<unknown>>();
  let holders = 0;

  const remember = (key: string, read: () => Promise<unknown>, value: unknown) => {
    remembered.delete(key);
    remembered.set(key, { value, asOf: new Date(now()), askedAt: now(), read });
    // Map order is insertion order: the first key is the one asked for least recently.
    if (remembered.size > REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
  };
  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    const done = () => void running.delete(p);
    p.then(done, done);
    return p;
  };
  const refresh = async () => {
    const due = [...remembered].filter(([, e]) => now() - e.askedAt <= REFRESH_WITHIN_MS);
    for (const [key, e] of due) {
      const value = await e.read().catch(() => undefined);
      if (value === undefined) remembered.delete(key);
      else remembered.set(key, { ...e, value, asOf: new Date(now()) });
    }
  };
  const shown = (f: IngestingFile) => !f.endedAt || now() - f.endedAt.getTime() < ENDED_SHOWN_MS;

  return {
    files(merchantId) {
      return [...files.values()].filter((f) => shown(f) && (!merchantId || f.merchantId === merchantId)).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
    },
    begin(row, mid) {
      // A row of the same merchant and name is a leftover of an ingest of it that failed.
      for (const [id, f] of files) if (f.merchantId === row.merchantId && f.fileName === row.fileName) files.delete(id);
      const at = new Date(now());
      files.set(row.batchId, { ...row, mid, acceptedCount: 0, rejectedCount: 0, updatedAt: at, endedAt: undefined });
    },
    update(batchId, counts) {
      const f = files.get(batchId);
      if (!f) return;
      f.acceptedCount = counts.accepted;
      f.rejectedCount = counts.rejected;
      f.updatedAt = new Date(now());
    },
    end(batchId) {
      const f = files.get(batchId);
      if (f) f.endedAt = new Date(now());
    },
    drop: (batchId) => void files.delete(batchId),
    settle(merchantId, fileName) {
      for (const [id, f] of files) if (f.merchantId === merchantId && f.fileName === fileName && f.endedAt) files.delete(id);
    },
    held: () => holders > 0,
    async holding(work) {
      if (holders === 0) await refresh();
      holders++;
      try {
        await Promise.allSettled([...running]);
        return await work();
      } finally {
        holders--;
      }
    },
    async read<T>(key: string, read: () => Promise<T>): Promise<Remembered<T> | undefined> {
      if (holders > 0) {
        const e = remembered.get(key);
        if (!e) return undefined;
        e.askedAt = now();
        return { value: e.value as T, asOf: e.asOf };
      }
      const value = await track(read());
      remember(key, read, value);
      return { value, asOf: new Date(now()) };
    },
  };
}

const boards = new WeakMap<Db, ProgressBoard>();

/** The board of this database handle, made on first use. */
export function progressBoard(db: Db): ProgressBoard {
  let board = boards.get(db);
  if (!board) boards.set(db, (board = createProgressBoard()));
  return board;
}
