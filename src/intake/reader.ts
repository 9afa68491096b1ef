// One read of a batch file, chunk by chunk: the scanner cuts out its entries, and on the same
// bytes the SHA-256 (of the bytes as uploaded), the header values wherever they stand, the
// entry count, the bounds (limits.ts) and the card-number scan (card-scan.ts) are taken. The
// single-read ingest (one-pass.ts) parses and stores the entries as they come; the same
// reader, drained without storing, is the whole of what used to be a separate first pass.
import { createHash } from 'node:crypto';
import { BatchScanner, type ScanItem } from './scanner.ts';
import { fileChunks, isGzip } from './prescan.ts';
import { CardScan } from './card-scan.ts';
import { IntakeLimitError, type IntakeLimits } from './limits.ts';
import { HEADER_COST_PER_BYTE, MemoryBudget, type FileBudget } from './budget.ts';

export type EntryItem = Extract<ScanItem, { kind: 'entry' }>;

/** Bytes scanned per step, and the entries past which no further step is taken before handing over. */
const SLICE_BYTES = 64 * 1024;
const MAX_ITEMS = 4096;

export interface ReadSummary {
  sha256: string;
  header: Record<string, unknown>;
  entryCount: number;
}

export class BatchReader {
  /** The header values read so far (a value given twice keeps the last, as JSON.parse would). */
  readonly header: Record<string, unknown> = {};
  /** Entries read so far; all of them once `done`. */
  entryCount = 0;
  /** A header value stood after the first entry: entries read before it did not know it. */
  headerAfterEntries = false;
  done = false;
  private readonly hash = createHash('sha256');
  private readonly scanner: BatchScanner;
  private readonly cards: CardScan | undefined;
  private readonly chunks: AsyncGenerator<Buffer>;
  private readonly fileBytes: number;
  private readonly maxEntries: number;
  /** Charged with the header kept and every entry handed over until its taker releases it. */
  readonly budget: FileBudget;
  private packedBytes = 0;
  /** What is left of the chunk read last, for the scanner. */
  private rest: Buffer = Buffer.alloc(0);
  /** Bytes of content read so far (after decompression). */
  unpackedBytes = 0;
  private digest: string | undefined;
  private readonly hashed: boolean;

  /**
   * `fileBytes`: the file's size on disk (for `estimatedEntries`); `scanCards`: also look for
   * card numbers in clear (the archive-or-delete decision); `hash: false`: no SHA-256 (a staged
   * ingest's store pass, whose file the check read and hashed already).
   */
  constructor(path: string, name: string, limits: IntakeLimits, opts: { fileBytes?: number; scanCards?: boolean; budget?: FileBudget; hash?: boolean } = {}) {
    this.budget = opts.budget ?? new MemoryBudget(limits.memoryBytes).forFile(limits.fileMemoryBytes);
    this.maxEntries = limits.maxEntries;
    this.scanner = new BatchScanner(limits, this.budget);
    this.cards = opts.scanCards ? new CardScan() : undefined;
    this.fileBytes = opts.fileBytes ?? 0;
    const hashed = (this.hashed = opts.hash !== false);
    const counted = {
      update: (raw: Buffer) => {
        if (hashed) this.hash.update(raw);
        this.packedBytes += raw.length;
      },
    };
    this.chunks = fileChunks(path, isGzip(name), counted, limits);
  }

  /**
   * The entries of the next chunk of the file that holds any; undefined at its end. Throws a
   * BatchSyntaxError or an IntakeLimitError the moment the bytes break the layout or a bound.
   */
  async next(): Promise<EntryItem[] | undefined> {
    for (;;) {
      if (this.rest.length === 0) {
        const read = await this.chunks.next();
        if (read.done) {
          if (!this.done) this.scanner.end();
          this.done = true;
          return undefined;
        }
        this.unpackedBytes += read.value.length;
        this.rest = read.value;
      }
      // A slice at a time, until enough entries are cut: a megabyte of `{},` is 350,000
      // entries, too many to hold at once; a megabyte of real ones (700) is taken whole.
      const entries: EntryItem[] = [];
      try {
        while (this.rest.length > 0 && entries.length < MAX_ITEMS) {
          const slice = this.rest.subarray(0, SLICE_BYTES);
          this.rest = this.rest.subarray(slice.length);
          // The card scan's worst input ("9.9.9.…") costs about a millisecond a KiB: a slice at a
          // time, with a turn for the event loop after each, /healthz and the API never wait long.
          if (this.cards) {
            this.cards.push(slice);
            await new Promise(setImmediate);
          }
          for (const e of this.take(this.scanner.push(slice))) entries.push(e);
        }
      } catch (err) {
        this.release(entries);
        throw err;
      }
      if (entries.length > 0) return entries;
    }
  }

  /** Reads the rest of the file without handing anything over (its structure is still checked). */
  async drain(): Promise<void> {
    for (let items = await this.next(); items; items = await this.next()) this.release(items);
  }

  /** Stops reading before the end (a read of a range of entries): the file is closed. */
  async close(): Promise<void> {
    await this.chunks.return(undefined);
  }

  /** The entries handed over are parsed and dropped, or stored: their memory goes back. */
  release(items: EntryItem[]): void {
    let cost = 0;
    for (const item of items) cost += item.cost;
    this.budget.release(cost);
  }

  /** Once `done`: what a separate first pass used to compute. */
  summary(): ReadSummary {
    if (!this.done) throw new Error('the file has not been read to its end');
    if (!this.hashed) throw new Error('this read of the file took no SHA-256');
    this.digest ??= this.hash.digest('hex');
    return { sha256: this.digest, header: this.header, entryCount: this.entryCount };
  }

  /** Whether a card number in clear was seen (with `scanCards`, once `done`). */
  get sawCardNumber(): boolean {
    return this.cards?.found ?? false;
  }

  /**
   * The number of entries the whole file holds: exact once read to the end (a file smaller
   * than one read chunk is, at its first entries), else projected from the bytes read so far.
   */
  estimatedEntries(): number {
    const scanned = this.unpackedBytes - this.rest.length;
    if (this.done || this.fileBytes === 0 || scanned === 0) return this.entryCount;
    // The packed bytes behind what was scanned (all of them for a plain file).
    const packedScanned = (this.packedBytes * scanned) / this.unpackedBytes;
    if (packedScanned >= this.fileBytes) return this.entryCount;
    return Math.max(this.entryCount, Math.round((this.entryCount * this.fileBytes) / packedScanned));
  }

  private take(items: ScanItem[]): EntryItem[] {
    const entries: EntryItem[] = [];
    for (const item of items) {
      if (item.kind === 'entry') {
        try {
          if (item.index >= this.maxEntries) throw new IntakeLimitError('ERR_INTAKE_TOO_MANY_ENTRIES', `the file has more than ${this.maxEntries} entries (intake.maxEntries)`);
          this.budget.charge(item.cost, `entry ${item.index + 1}`);
        } catch (err) {
          this.release(entries);
          throw err;
        }
        entries.push(item);
      } else {
        if (this.entryCount + entries.length > 0) this.headerAfterEntries = true;
        // Kept until the file is done: the header is small by its bounds (intake.maxHeaderBytes).
        this.budget.charge(HEADER_COST_PER_BYTE * (item.key.length + item.bytes), `the header value "${item.key.slice(0, 64)}"`);
        this.header[item.key] = item.value;
      }
    }
    this.entryCount += entries.length;
    return entries;
  }
}
