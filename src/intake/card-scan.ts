// Whether a batch file holds a card number in clear anywhere in its bytes: accepted and
// rejected entries, fields the model drops, additionalFields, a broken tail (DESIGN.md,
// "Input files afterwards"). Only a file with none is archived; the `token` flag of the
// accepted entries alone never decides it (PCI DSS 3.3, 3.4). Streaming, in bounded memory:
// each chunk is searched together with the end of the one before, so a number split across
// two chunks is still found. The ingest runs it on the chunks it reads anyway (reader.ts).
import { hasCardNumber } from '../scrub.ts';
import { fileChunks, isGzip } from './prescan.ts';

/** A card number with separators is at most 19 digits and 18 separators; room to spare. */
const CARRY = 64;

/** The search over a file's chunks, fed one chunk at a time. */
export class CardScan {
  found = false;
  private carry = '';

  push(chunk: Buffer): void {
    if (this.found) return;
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
