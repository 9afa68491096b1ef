// A batch file intake could not store: set aside for the operator, outside every chroot,
// and answered with an ack, so it is never retried forever nor kept in inbound/ with its
// card numbers. The quarantine holds a redacted copy (card numbers masked to six and four,
// CVV-shaped values removed: DESIGN.md "Input files afterwards"), never the original.
import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { scrubText } from '../scrub.ts';
import { AckWriter, type AckSummary, type FileError } from './ack.ts';
import { fileChunks, isGzip } from './prescan.ts';
import type { IntakeFile } from './types.ts';

/** Text held back at the end of a chunk: a card number with separators is at most 37 characters. */
const HOLD = 64;
/** The longest stretch a card number's spelling can fill (as CardScan carries, card-scan.ts). */
const HOLD_RUN = 4096;
/** Past this much text without a safe place to cut, cut anyway (one entry is far smaller). */
const MAX_CARRY = 1 << 20;

/**
 * Where the text may be cut without splitting a card number or a CVV from its label: after
 * the last `}` or line break before the held-back tail (between entries, in JSON).
 */
function safeCut(text: string): number {
  const limit = text.length - HOLD;
  if (limit <= 0) return 0;
  const at = Math.max(text.lastIndexOf('}', limit - 1), text.lastIndexOf('\n', limit - 1));
  if (at >= 0) return at + 1;
  if (text.length < MAX_CARRY) return 0;
  // No structure at all: cut outside anything that may belong to a card number in one of the
  // detector's spellings (digits, separators, JSON escapes, UTF-8 read as latin1), looking back
  // no further than HOLD_RUN so that the carry stays bounded.
  let cut = limit;
  while (cut > limit - HOLD_RUN && /[\dA-Fa-fu\s\-./\\\u0080-\u00ff]/.test(text[cut - 1]!)) cut--;
  return cut > limit - HOLD_RUN ? cut : limit;
}

async function* redacted(path: string, gzip: boolean, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  let carry = '';
  // latin1 maps every byte to one character and back: the copy differs only where masked.
  for await (const chunk of fileChunks(path, gzip, hash)) {
    const text = carry + chunk.toString('latin1');
    const cut = safeCut(text);
    if (cut > 0) yield Buffer.from(scrubText(text.slice(0, cut)), 'latin1');
    carry = text.slice(cut);
  }
  if (carry) yield Buffer.from(scrubText(carry), 'latin1');
}

export interface Quarantined {
  /** The redacted copy; null when the input could not be read to make one. */
  path: string | null;
  ackPath: string;
  sha256: string;
}

async function writeCopy(file: IntakeFile, path: string, hash: ReturnType<typeof createHash>): Promise<boolean> {
  const gzip = isGzip(file.name);
  const source = Readable.from(redacted(file.path, gzip, hash));
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  try {
    await (gzip ? pipeline(source, createGzip(), out) : pipeline(source, out));
    return true;
  } catch {
    await rm(path, { force: true });
    return false;
  }
}

/**
 * Writes the redacted copy to `<dir>/<mid>/<day>/<time>-<name>`, the ack naming `error`, then
 * removes the input. An input that cannot be read (a corrupt gzip) leaves no copy, and is
 * removed all the same: it may hold card numbers.
 */
export async function quarantineFile(dir: string, file: IntakeFile, error: FileError, receivedAt: Date, now: () => Date = () => new Date()): Promise<Quarantined> {
  const at = now();
  const folder = join(dir, file.mid, at.toISOString().slice(0, 10));
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${at.toISOString().replace(/[:.]/g, '-')}-${file.name}`);
  const hash = createHash('sha256');
  const copied = await writeCopy(file, path, hash);
  const ack = new AckWriter(file.outboundDir, file.name);
  const summary: AckSummary = {
    file: file.name, sha256: copied ? hash.digest('hex') : '', mid: file.mid, batchId: null, receivedAt: receivedAt.toISOString(),
    finishedAt: now().toISOString(), status: 'rejected', counts: { entries: 0, accepted: 0, rejected: 0 }, input: 'quarantined', error,
  };
  await ack.finish(summary);
  const ackPath = await ack.publish();
  await rm(file.path, { force: true });
  return { path: copied ? path : null, ackPath, sha256: summary.sha256 };
}
