// Files written whole under a temporary name and then renamed into place, so a merchant or an
// operator never reads half of one. The temporary name is unique per write, not per process:
// two writers in one process (or replicas on shared storage, whose process ids may coincide)
// must never share, and delete, each other's temporary file.
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';

/** A hidden temporary path beside `name` in `dir`: `.<name>.<random>.tmp`. */
export function tmpPathFor(dir: string, name: string): string {
  return join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
}

export class AtomicFile {
  readonly path: string;
  readonly tmpPath: string;
  private readonly out: WriteStream;
  // A stream error (disk full, or a write cut short by `discard`) may come while nobody awaits
  // the stream; kept here, it is thrown by the next call instead of crashing the process.
  private failure: Error | undefined;

  constructor(dir: string, name: string) {
    this.path = join(dir, name);
    this.tmpPath = tmpPathFor(dir, name);
    this.out = createWriteStream(this.tmpPath, { mode: 0o640 });
    this.out.on('error', (err) => (this.failure ??= err));
  }

  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  /** Writes the last text and waits until everything is on disk under the temporary name. */
  async end(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    this.out.end(text);
    await finished(this.out);
  }

  /** Moves the finished file into place. */
  async publish(): Promise<string> {
    await rename(this.tmpPath, this.path);
    return this.path;
  }

  /** Abandons the file. Waits for the stream to close first: a file still being opened would
   * otherwise appear after the removal. */
  async discard(): Promise<void> {
    if (!this.out.closed) {
      const closed = new Promise<void>((resolve) => this.out.once('close', () => resolve()));
      this.out.destroy();
      await closed;
    }
    await rm(this.tmpPath, { force: true });
  }
}
