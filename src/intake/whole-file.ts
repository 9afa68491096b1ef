// The acceptance pre-pass of the staged ingest (staged.ts): a large file read to its end
// before anything of it is stored, to find what rejects a file whole (DESIGN.md §2) — its
// structure (the scanner), an entry that is not JSON (JSON.parse, the only parser of an
// entry's inside), a bound (limits.ts), and on the same bytes its SHA-256, its header
// wherever it stands and the card-number scan. What it does not find cannot reject the file
// whole any more, so the entries can then be stored, and committed, a chunk at a time.
//
// Its cost (docs/performance.md "Staged ingest"): the scanner and one JSON.parse per entry,
// with no model check, no row encoding and no database — a fraction of the store pass.
import { checkSyntax } from './pass-two.ts';
import type { BatchReader, ReadSummary } from './reader.ts';

export interface WholeFile extends ReadSummary {
  /** A header value stood after the first entry. */
  headerAfterEntries: boolean;
  /** A card number in clear somewhere in the bytes (the archive-or-delete decision). */
  sawCardNumber: boolean;
}

/** Reads `reader` (made with `scanCards`) to its end; throws what rejects the file whole. */
export async function readWhole(reader: BatchReader): Promise<WholeFile> {
  for (let items = await reader.next(); items; items = await reader.next()) {
    try {
      for (const item of items) checkSyntax(item);
    } finally {
      reader.release(items);
    }
  }
  return { ...reader.summary(), headerAfterEntries: reader.headerAfterEntries, sawCardNumber: reader.sawCardNumber };
}
