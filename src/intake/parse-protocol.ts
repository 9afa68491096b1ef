// The messages between the daemon's thread and the intake worker (parse-worker.ts), and the
// errors that cross between them. A worker's error arrives as plain data: it is made again
// here as the class the ingest decides on (a BatchSyntaxError rejects the file with its
// position, an IntakeLimitError with its bound, an EntrySyntaxError sends the file to the
// second read), with the same message.
import type { BatchEntry } from '../domain/index.ts';
import type { RejectedEntry } from './ack.ts';
import type { EntryContext } from './entries.ts';
import type { IntakeLimits } from './limits.ts';
import type { SharedBudget } from './budget.ts';
import { BatchSyntaxError } from './scanner.ts';
import { IntakeLimitError } from './limits.ts';
import { EntrySyntaxError } from './pass-two.ts';

export interface OpenFile {
  path: string;
  name: string;
  limits: IntakeLimits;
  fileBytes: number;
  budget: SharedBudget;
  /**
   * The staged ingest (staged.ts): the whole file is read and checked first ('checked'), and
   * only then, on order, read again from the entry `from` on and parsed into chunks.
   */
  staged?: boolean;
}

/** The daemon's thread → the worker. */
export type ToWorker =
  /** Parse, check and encode the entries into chunks (the context is cloned: its Date and Set survive). */
  | { type: 'parse'; ctx: EntryContext; chunkSize: number; depth: number; from?: number }
  /** A chunk was taken: one more may be sent. */
  | { type: 'credit' }
  /** Read to the end without handing anything over (the structure is still checked). */
  | { type: 'drain' };

/** Accepted entries whose cards are tokens already: their order rows are encoded for COPY. */
export interface EncodedRows {
  /** COPY text as UTF-8, one line per row ('\n' inside a value is escaped, so lines split exactly); transferred, not copied. */
  bytes: Uint8Array;
  ids: string[];
  sequenceNumbers: Array<number | null>;
  orderIds: string[];
  tokens: string[];
  /** The payers' emails, in sandbox mode only (the test cards' payer-email rule). */
  emails: Array<string | undefined> | undefined;
}

export interface ChunkMessage {
  type: 'chunk';
  /** Entries rejected while parsing and checking, with their 1-based positions, in order. */
  rejected: Array<{ entry: RejectedEntry; position: number }>;
  /** The accepted entries, encoded; or, when one of them carries a full card number, as entries. */
  rows: EncodedRows | undefined;
  entries: BatchEntry[] | undefined;
  /** The memory budget the chunk holds until stored. */
  cost: number;
  /**
   * Entries decided through this chunk (the position of its last entry; chunks are contiguous,
   * so this is where the next one starts), and whether any accepted one carried a full card number.
   */
  entryCount: number;
  carriedCardNumbers: boolean;
  unpackedBytes: number;
}

export interface ReadState {
  header: Record<string, unknown>;
  headerAfterEntries: boolean;
  entryCount: number;
  unpackedBytes: number;
  estimatedEntries: number;
}

/** The worker → the daemon's thread. */
export type FromWorker =
  | ({ type: 'first'; hasEntries: boolean } & ReadState)
  | ChunkMessage
  /** The staged ingest's first read ended: the file is whole (its acceptance is the daemon thread's to decide). */
  | ({ type: 'checked'; sha256: string; sawCardNumber: boolean } & ReadState)
  | ({ type: 'end'; sha256: string; sawCardNumber: boolean } & ReadState)
  | { type: 'error'; error: WireError; state: ReadState };

export interface WireError {
  kind: 'syntax' | 'entry' | 'limit' | 'other';
  message: string;
  offset?: number;
  line?: number;
  column?: number;
  code?: string;
  path?: string;
  syscall?: string;
}

export function toWire(err: unknown): WireError {
  const e = err as Error & Partial<Record<'offset' | 'line' | 'column', number>> & { code?: string; path?: string; syscall?: string };
  if (err instanceof BatchSyntaxError) return { kind: err instanceof EntrySyntaxError ? 'entry' : 'syntax', message: e.message, offset: err.offset, line: err.line, column: err.column };
  if (err instanceof IntakeLimitError) return { kind: 'limit', message: e.message, code: err.code };
  return { kind: 'other', message: e?.message ?? String(err), ...(e?.code ? { code: String(e.code) } : {}), ...(e?.path ? { path: e.path } : {}), ...(e?.syscall ? { syscall: e.syscall } : {}) };
}

export function fromWire(w: WireError): Error {
  let err: Error;
  if (w.kind === 'syntax' || w.kind === 'entry') {
    err = w.kind === 'entry' ? new EntrySyntaxError('', w.offset!, w.line!, w.column!) : new BatchSyntaxError('', w.offset!, w.line!, w.column!);
  } else if (w.kind === 'limit') err = new IntakeLimitError(w.code as IntakeLimitError['code'], w.message);
  else err = Object.assign(new Error(w.message), { ...(w.code ? { code: w.code } : {}), ...(w.path ? { path: w.path } : {}), ...(w.syscall ? { syscall: w.syscall } : {}) });
  err.message = w.message;
  return err;
}
