// The bytes of a batch file as a stream of (decompressed) chunks, within the size bounds: what
// reader.ts scans (and quarantine.ts and card-scan.ts copy or search). The name is from the
// time a separate first pass read the file before the ingest; the ingest now reads it once.
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { IntakeLimitError, RATIO_GRACE_BYTES, type IntakeLimits } from './limits.ts';

export const isGzip = (name: string) => /\.gz$/i.test(name);

const CHUNK_BYTES = 1 << 20;

type SizeLimits = Pick<IntakeLimits, 'maxUnpackedBytes' | 'maxExpansionRatio'>;

/** Hears every raw byte read (a SHA-256, a byte count). */
export interface RawBytesSink {
  update(raw: Buffer): unknown;
}

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
export async function* fileChunks(path: string, gzip: boolean, hash?: RawBytesSink, limits?: SizeLimits): AsyncGenerator<Buffer> {
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
  } catch (err) {
    // A cut or corrupt gzip is the file's fault: taken for a storage failure, it was tried
    // again intake.maxTries times over minutes, then quarantined as "send it again".
    const zlib = (err as NodeJS.ErrnoException).code?.startsWith('Z_');
    throw zlib ? new IntakeLimitError('ERR_INTAKE_SYNTAX', `the file is not valid gzip (${(err as Error).message})`) : err;
  } finally {
    // Leaving early (a bound crossed, a syntax error): stop reading and unpacking at once.
    raw.destroy();
    gunzip.destroy();
  }
  await done;
}
