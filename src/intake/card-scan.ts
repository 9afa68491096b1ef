// Whether a batch file holds a card number in clear anywhere in its bytes: accepted and
// rejected entries, fields the model drops, additionalFields, a broken tail (DESIGN.md,
// "Input files afterwards"). Only a file with none is archived; the `token` flag of the
// accepted entries alone never decides it (PCI DSS 3.3, 3.4). The search is the one detector
// (card-numbers.ts), so a number written with dots, runs of spaces, JSON escapes (`\u0035`) or
// full-width digits keeps the file out of the archive as a plain one does. Streaming, in bounded
// memory: each chunk is searched together with the end of the one before, so a number split
// across two chunks is still found. The ingest runs it on the chunks it reads anyway (reader.ts).
import { hasCardNumber } from '../card-numbers.ts';
import { fileChunks, isGzip } from './prescan.ts';

/**
 * The end of a chunk searched again with the next one. A number is at most 19 digits of six
 * characters each (`\u0035`) with separators between them, which may be runs of spaces: runs
 * that add up to more than this across a chunk boundary are the one spelling not seen.
 */
const CARRY = 4096;

/** The search over a file's chunks, fed one chunk at a time. */
export class CardScan {
  found = false;
  private carry = '';

  push(chunk: Buffer): void {
    if (this.found) return;
    // latin1: one character per byte, so a UTF-8 sequence split between chunks is whole again
    // once the carry is joined (the detector reads full-width digits as their UTF-8 bytes).
    const text = this.carry + chunk.toString('latin1');
    if (hasCardNumber(text)) this.found = true;
    this.carry = text.slice(-CARRY);
  }
}

export async function fileHasCardNumber(path: string, name: string): Promise<boolean> {
  const scan = new CardScan();
  for await (const chunk of fileChunks(path, isGzip(name))) {
    scan.push(chunk);
    if (scan.found) return true;
  }
  return false;
}
