// Intake's memory, by accounting rather than by listing shapes: every byte intake keeps for a
// file — header keys and values, the entry being cut out, entries parsed and waiting for
// storage, the ack's lists — is charged to the file's budget and to the process's, and given
// back when dropped. A charge that would cross either budget stops reading at once: the file
// is rejected whole with ERR_INTAKE_MEMORY_BUDGET, naming the budget. The bounds on shapes
// (limits.ts) stop the known bombs early with a precise message; this stops the rest.
//
// What is charged is the heap a value will take once parsed, estimated from its text as it is
// scanned (entryCost): JSON.parse of `[[],[],…]` takes 13.3 heap bytes per text byte, `{}` 8,
// a typical entry 2–3 (measured with `node --expose-gc`, heapUsed over 50 parses of 60 KB).
import { IntakeLimitError } from './limits.ts';

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/** What an entry handed over costs beside its text: the item itself and the string's header. */
const ENTRY_OVERHEAD = 128;

/** The heap of a parsed JSON value: its text twice over, a slot per value, an object per container. */
export const entryCost = (textBytes: number, commas: number, containers: number) => ENTRY_OVERHEAD + 2 * textBytes + 16 * commas + 64 * containers;

/** Header values are not counted as they are scanned: the worst measured shape's ratio, rounded up. */
export const HEADER_COST_PER_BYTE = 16;

/**
 * Two counters (bytes held, and the peak) in shared memory: a file's entries are read and
 * parsed in a worker thread (parse-worker.ts) while the daemon's thread writes the ack, and
 * both charge the same budgets. Atomics keep the two threads' updates whole.
 */
class Counters {
  readonly cells: BigInt64Array;
  constructor(shared?: SharedArrayBuffer) {
    this.cells = new BigInt64Array(shared ?? new SharedArrayBuffer(16));
  }
  get used(): number {
    return Number(Atomics.load(this.cells, 0));
  }
  set used(v: number) {
    Atomics.store(this.cells, 0, BigInt(v));
  }
  get peak(): number {
    return Number(Atomics.load(this.cells, 1));
  }
  set peak(v: number) {
    Atomics.store(this.cells, 1, BigInt(v));
  }
  /** Adds `bytes` (negative to give back) and returns the new total, raising the peak with it. */
  add(bytes: number): number {
    const now = Number(Atomics.add(this.cells, 0, BigInt(bytes))) + bytes;
    if (now > this.peak) this.peak = now;
    return now;
  }
}

/** What another thread needs to charge the same budgets (FileBudget.attach). */
export interface SharedBudget {
  processCells: SharedArrayBuffer;
  processLimit: number;
  fileCells: SharedArrayBuffer;
  fileLimit: number;
}

export class MemoryBudget extends Counters {
  readonly limitBytes: number;
  constructor(limitBytes: number, shared?: SharedArrayBuffer) {
    super(shared);
    this.limitBytes = limitBytes;
  }

  forFile(limitBytes: number): FileBudget {
    return new FileBudget(this, limitBytes);
  }
}

export class FileBudget extends Counters {
  /** The file's budget, in bytes. */
  readonly limit: number;
  private readonly process: MemoryBudget;

  constructor(process: MemoryBudget, limit: number, shared?: SharedArrayBuffer) {
    super(shared);
    this.process = process;
    this.limit = limit;
  }

  /** The same budgets, charged from another thread. */
  static attach(s: SharedBudget): FileBudget {
    return new FileBudget(new MemoryBudget(s.processLimit, s.processCells), s.fileLimit, s.fileCells);
  }

  shared(): SharedBudget {
    return { processCells: this.process.cells.buffer as SharedArrayBuffer, processLimit: this.process.limitBytes, fileCells: this.cells.buffer as SharedArrayBuffer, fileLimit: this.limit };
  }

  /** Takes `bytes` for `what`; throws (and takes nothing) when a budget would be crossed. */
  charge(bytes: number, what: string): void {
    const used = this.used;
    if (used + bytes > this.limit) {
      throw new IntakeLimitError('ERR_INTAKE_MEMORY_BUDGET', `holding ${what} would take the file's memory to ${mib(used + bytes)}, over its budget of ${mib(this.limit)} (intake.fileMemoryBytes)`);
    }
    const p = this.process;
    const all = p.used;
    if (all + bytes > p.limitBytes) {
      throw new IntakeLimitError('ERR_INTAKE_MEMORY_BUDGET', `holding ${what} would take intake's memory to ${mib(all + bytes)}, over its budget of ${mib(p.limitBytes)} for every file together (intake.memoryBytes)`);
    }
    this.add(bytes);
    p.add(bytes);
  }

  release(bytes: number): void {
    const b = Math.min(bytes, this.used);
    this.add(-b);
    this.process.add(-b);
  }

  /** The file is done with: whatever it still holds goes back. */
  close(): void {
    this.release(this.used);
  }
}
