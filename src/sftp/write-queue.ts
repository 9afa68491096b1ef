// The disk writes of one upload, one at a time: WRITE requests that arrive while a write is
// running wait, and the next write takes all of them that continue one another (one
// writev). Writes land in the order they arrived, so a client rewriting a range gets its
// last data (parallel positional writes land in any order), and a 500 MB upload takes about
// 190 disk writes instead of 1,900 (each one a hand-over to the libuv thread pool and a
// thread wake-up). Parallel writes to one file would only queue on the file's lock in the
// kernel anyway.

export interface WriteQueue {
  /** Resolves once `chunks` (`length` bytes) are written at `offset`; rejects on failure. */
  write(offset: number, chunks: Buffer[], length: number): Promise<void>;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
}

/** Writes `chunks` at `offset`; returns the bytes written. */
export type WriteAt = (offset: number, chunks: Buffer[]) => Promise<number>;

interface Pending {
  offset: number;
  chunks: Buffer[];
  length: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** Linux's IOV_MAX is 1024; a 255 KiB write arrives in at most 9 pieces. */
const MAX_PIECES = 512;

export function createWriteQueue(writeAt: WriteAt, maxBatchBytes: number): WriteQueue {
  const queue: Pending[] = [];
  let running: Promise<void> | undefined;

  /** The queue's head and the requests that continue it, within the limits. */
  const takeBatch = (): Pending[] => {
    const batch = [queue.shift()!];
    let end = batch[0]!.offset + batch[0]!.length;
    let bytes = batch[0]!.length;
    let pieces = batch[0]!.chunks.length;
    for (let next = queue[0]; next && next.offset === end; next = queue[0]) {
      if (bytes + next.length > maxBatchBytes || pieces + next.chunks.length > MAX_PIECES) break;
      batch.push(queue.shift()!);
      end += next.length;
      bytes += next.length;
      pieces += next.chunks.length;
    }
    return batch;
  };

  const writeBatch = async (batch: Pending[]): Promise<void> => {
    const length = batch.reduce((sum, p) => sum + p.length, 0);
    try {
      const written = await writeAt(batch[0]!.offset, batch.flatMap((p) => p.chunks));
      // A regular file is written short only when the disk or a limit is reached.
      if (written !== length) throw Object.assign(new Error(`short write: ${written} of ${length} bytes`), { code: 'ENOSPC' });
      for (const p of batch) p.resolve();
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0) await writeBatch(takeBatch());
    running = undefined;
  };

  return {
    write(offset, chunks, length) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ offset, chunks, length, resolve, reject });
        // Started a microtask later: the requests parsed from the same data go together.
        running ??= Promise.resolve().then(drain);
      });
    },
    idle: () => running ?? Promise.resolve(),
  };
}
