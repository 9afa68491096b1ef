// Bounds a batch file meets while it is read, so one hostile upload cannot take the daemon
// (and the HTTP API and engine sharing its process) down: a 3 MB gzip that unpacks to 3 GiB,
// one entry that never closes, or 5,200 header keys of 63 KB each (a 3.5 MB gzip that took a
// daemon to 4.37 GiB, then again at every start) used to be held in memory whole. Each bound
// is checked as the bytes stream by, and reading stops the moment one is crossed; the file is
// then rejected whole with an ack naming the bound. Beside the bounds on shapes, every byte
// intake keeps for a file is counted against a memory budget (budget.ts): a shape nobody
// listed still meets it.
import type { INTAKE_ERRORS } from './codes.ts';

export interface IntakeLimits {
  /** Bytes of a file after decompression. */
  maxUnpackedBytes: number;
  /** Decompressed bytes per compressed byte (checked past the first 16 MiB). */
  maxExpansionRatio: number;
  /** Bytes of one entry of `requests`. */
  maxEntryBytes: number;
  /** Bytes of one top-level key. */
  maxKeyBytes: number;
  /** Nesting of objects and arrays inside one entry. */
  maxDepth: number;
  /** Top-level keys besides `requests` (the header has three). */
  maxHeaderKeys: number;
  /** Bytes of every header key and value together. */
  maxHeaderBytes: number;
  /** Entries of `requests` in one file. */
  maxEntries: number;
  /** Memory intake may hold for one file (its estimated heap): header, entries, chunks, ack. */
  fileMemoryBytes: number;
  /** Memory intake may hold for every file of this process together. */
  memoryBytes: number;
}

export const DEFAULT_LIMITS: IntakeLimits = {
  maxUnpackedBytes: 8 * 1024 ** 3,
  maxExpansionRatio: 200,
  maxEntryBytes: 256 * 1024,
  maxKeyBytes: 1024,
  maxDepth: 32,
  maxHeaderKeys: 16,
  maxHeaderBytes: 64 * 1024,
  maxEntries: 1_000_000,
  fileMemoryBytes: 64 * 1024 ** 2,
  memoryBytes: 96 * 1024 ** 2,
};

/** Below this many unpacked bytes the ratio is not judged (a tiny file compresses oddly). */
export const RATIO_GRACE_BYTES = 16 * 1024 * 1024;

export class IntakeLimitError extends Error {
  readonly code: keyof typeof INTAKE_ERRORS;
  constructor(code: keyof typeof INTAKE_ERRORS, message: string) {
    super(message);
    this.name = 'IntakeLimitError';
    this.code = code;
  }
}
