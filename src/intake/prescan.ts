// Pass one over a batch file: its SHA-256 (of the bytes as uploaded), its header values
// wherever they stand, the number of entries, and any structural syntax error — all before
// anything touches the database, so a malformed or unauthorised file costs one read.
import { createHash, type Hash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { BatchScanner, type ScanItem } from './scanner.ts';
import { IntakeLimitError, RATIO_GRACE_BYTES, type IntakeLimits } from './limits.ts';

export interface Prescan {
  sha256: string;
  header: Record<string, unknown>;
  entryCount: number;
}

export const isGzip = (name: string) => /\.gz$/i.test(name);

const CHUNK_BYTES = 1 << 20;

type SizeLimits = Pick<IntakeLimits, 'maxUnpackedBytes' | 'maxExpansionRatio'>;

/** Throws the moment the bytes unpacked so far cross a bound: nothing more is read. */
function checkSize(unpacked: number, packed: number, limits: SizeLimits | undefined): void {
  if (!limits) return;
  if (unpacked > limits.maxUnpackedBytes) {
    throw new IntakeLimitError('ERR_INTAKE_TOO_LARGE', `the file unpacks to more than ${limits.maxUnpackedBytes} bytes (intake.maxUnpackedBytes)`);
  }
  if (unpacked > RATIO_GRACE_BYTES && unpacked > packed * limits.maxExpansionRatio) {
    throw new IntakeLimitError('ERR_INTAKE_TOO_LARGE', `the file expands more than ${limits.maxExpansionRatio} times (intake.maxExpansionRatio): ${packed} bytes gave ${unpacked}`);
  }
}

/**
 * The file's content as a stream of (decompressed) chunks, hashing the raw bytes on the way.
 * With `limits`, reading stops as soon as the content crosses one (a decompression bomb).
 */
export async function* fileChunks(path: string, gzip: boolean, hash?: Hash, limits?: SizeLimits): AsyncGenerator<Buffer> {
  const raw = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  let packed = 0;
  let unpacked = 0;
  if (!gzip) {
    for await (const chunk of raw) {
      hash?.update(chunk as Buffer);
      packed = unpacked += (chunk as Buffer).length;
      checkSize(unpacked, packed, limits);
      yield chunk as Buffer;
    }
    return;
  }
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash?.update(chunk);
      packed += chunk.length;
      done(null, chunk);
    },
  });
  // pipeline() destroys every stage on an error, so a corrupt gzip ends the loop with it.
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  const done = pipeline(raw, hashing, gunzip).catch((err: unknown) => gunzip.destroy(err as Error));
  try {
    for await (const chunk of gunzip) {
      unpacked += (chunk as Buffer).length;
      checkSize(unpacked, packed, limits);
      yield chunk as Buffer;
    }
  } finally {
    // Leaving early (a bound crossed, a syntax error): stop reading and unpacking at once.
    raw.destroy();
    gunzip.destroy();
  }
  await done;
}

export async function prescan(path: string, name: string, limits?: IntakeLimits): Promise<Prescan> {
  const hash = createHash('sha256');
  const scanner = new BatchScanner(limits);
  const header: Record<string, unknown> = {};
  let entryCount = 0;
  const take = (items: ScanItem[]) => {
    for (const item of items) {
      if (item.kind === 'entry') entryCount++;
      else header[item.key] = item.value;
    }
  };
  for await (const chunk of fileChunks(path, isGzip(name), hash, limits)) take(scanner.push(chunk));
  scanner.end();
  return { sha256: hash.digest('hex'), header, entryCount };
}
