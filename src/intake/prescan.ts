// Pass one over a batch file: its SHA-256 (of the bytes as uploaded), its header values
// wherever they stand, the number of entries, and any structural syntax error — all before
// anything touches the database, so a malformed or unauthorised file costs one read.
import { createHash, type Hash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { BatchScanner, type ScanItem } from './scanner.ts';

export interface Prescan {
  sha256: string;
  header: Record<string, unknown>;
  entryCount: number;
}

export const isGzip = (name: string) => /\.gz$/i.test(name);

const CHUNK_BYTES = 1 << 20;

/** The file's content as a stream of (decompressed) chunks, hashing the raw bytes on the way. */
export async function* fileChunks(path: string, gzip: boolean, hash?: Hash): AsyncGenerator<Buffer> {
  const raw = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  if (!gzip) {
    for await (const chunk of raw) {
      hash?.update(chunk as Buffer);
      yield chunk as Buffer;
    }
    return;
  }
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash?.update(chunk);
      done(null, chunk);
    },
  });
  // pipeline() destroys every stage on an error, so a corrupt gzip ends the loop with it.
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  const done = pipeline(raw, hashing, gunzip).catch((err: unknown) => gunzip.destroy(err as Error));
  for await (const chunk of gunzip) yield chunk as Buffer;
  await done;
}

export async function prescan(path: string, name: string): Promise<Prescan> {
  const hash = createHash('sha256');
  const scanner = new BatchScanner();
  const header: Record<string, unknown> = {};
  let entryCount = 0;
  const take = (items: ScanItem[]) => {
    for (const item of items) {
      if (item.kind === 'entry') entryCount++;
      else header[item.key] = item.value;
    }
  };
  for await (const chunk of fileChunks(path, isGzip(name), hash)) take(scanner.push(chunk));
  scanner.end();
  return { sha256: hash.digest('hex'), header, entryCount };
}
