// The daemon thread's side of the intake worker (parse-worker.ts): the file's one read, done
// over there, seen from here. It answers what the ingest asks of a BatchReader once a read is
// over (the header, whether a header value followed the entries, the SHA-256, the card scan)
// and hands the parsed, checked and encoded chunks over one at a time.
import { Worker } from 'node:worker_threads';
import type { EntryContext } from './entries.ts';
import type { FileBudget } from './budget.ts';
import type { IntakeLimits } from './limits.ts';
import type { ReadSummary } from './reader.ts';
import type { WholeFile } from './whole-file.ts';
import { fromWire, type ChunkMessage, type FromWorker, type OpenFile, type ReadState, type ToWorker } from './parse-protocol.ts';

const WORKER = new URL('./parse-worker.ts', import.meta.url);

/**
 * The worker's heap. Its young generation is sized for intake alone (the daemon's own stays
 * small for its idle memory): a file's entries are short-lived garbage. Since each entry is
 * encoded as it is parsed (parse-worker.ts), entries die young and 16 MB collects them for no
 * more CPU than 32 did (docs/performance.md "Batch intake"). Its old generation is capped: a
 * file that would take more ends the worker, not the daemon.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 512 };

export class WorkerRead {
  header: Record<string, unknown> = {};
  headerAfterEntries = false;
  entryCount = 0;
  unpackedBytes = 0;
  done = false;
  sawCardNumber = false;
  readonly budget: FileBudget;
  private estimated = 0;
  private sha256 = '';
  private readonly worker: Worker;
  private readonly inbox: FromWorker[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private closed = false;
  /** The read ended with an error (the worker reads no further). */
  private stopped = false;
  /** The worker's last message was taken: the file is read to its end. */
  private ended = false;

  /** `staged`: the whole file is checked first (`checked`), and read again to be parsed (staged.ts). */
  constructor(path: string, name: string, limits: IntakeLimits, fileBytes: number, budget: FileBudget, staged = false) {
    this.budget = budget;
    const open: OpenFile = { path, name, limits, fileBytes, budget: budget.shared(), staged };
    this.worker = new Worker(WORKER, { workerData: open, resourceLimits: RESOURCE_LIMITS, stdout: false, stderr: false });
    this.worker.on('message', (m: FromWorker) => this.arrive(m));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`the intake worker stopped (exit code ${code}) before the file was read`));
    });
  }

  /** Waits for the worker's first entries: whether there are any, and the header before them. */
  async first(): Promise<{ hasEntries: boolean }> {
    const m = await this.receive();
    if (m.type !== 'first') throw new Error(`the intake worker answered ${m.type} first`);
    return { hasEntries: m.hasEntries };
  }

  /** A staged read: waits for the check of the whole file; throws what rejects it whole. */
  async checked(): Promise<WholeFile> {
    const m = await this.receive();
    if (m.type !== 'checked') throw new Error(`the intake worker answered ${m.type} before the check`);
    return { sha256: m.sha256, header: m.header, entryCount: m.entryCount, headerAfterEntries: m.headerAfterEntries, sawCardNumber: m.sawCardNumber };
  }

  /** Starts the parse (from the entry `from` on); `nextChunk` then hands its chunks over. */
  parse(ctx: EntryContext, chunkSize: number, depth: number, from?: number): void {
    this.send({ type: 'parse', ctx, chunkSize, depth, from });
  }

  /** The next chunk, or undefined once the whole file is read; throws what stopped the read. */
  async nextChunk(): Promise<ChunkMessage | undefined> {
    if (this.ended) return undefined;
    const m = await this.receive();
    if (m.type === 'chunk') {
      this.entryCount = m.entryCount;
      this.unpackedBytes = m.unpackedBytes;
      this.send({ type: 'credit' });
      return m;
    }
    if (m.type === 'end') return undefined;
    throw new Error(`the intake worker answered ${m.type} during the parse`);
  }

  /** Reads the rest of the file without handing anything over (its structure is still checked). */
  async drain(): Promise<void> {
    if (this.ended || this.stopped) return;
    this.send({ type: 'drain' });
    while ((await this.receive()).type !== 'end');
  }

  summary(): ReadSummary {
    if (!this.done) throw new Error('the file has not been read to its end');
    return { sha256: this.sha256, header: this.header, entryCount: this.entryCount };
  }

  estimatedEntries(): number {
    return this.estimated;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }

  private send(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private arrive(m: FromWorker): void {
    if (m.type === 'first' || m.type === 'end' || m.type === 'checked') this.take(m);
    if (m.type === 'error') this.take(m.state);
    if (m.type === 'end') {
      this.sha256 = m.sha256;
      this.sawCardNumber = m.sawCardNumber;
      this.done = true;
    }
    // A parse error leaves the worker waiting for an order to drain; any other ends its read.
    if (m.type === 'error' && m.error.kind !== 'entry') this.stopped = true;
    this.inbox.push(m);
    this.wake?.();
  }

  private take(s: ReadState): void {
    this.header = s.header;
    this.headerAfterEntries = s.headerAfterEntries;
    this.entryCount = s.entryCount;
    this.unpackedBytes = s.unpackedBytes;
    this.estimated = s.estimatedEntries;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
  }

  private async receive(): Promise<FromWorker> {
    for (;;) {
      const m = this.inbox.shift();
      if (m?.type === 'error') throw fromWire(m.error);
      if (m?.type === 'end') this.ended = true;
      if (m) return m;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
