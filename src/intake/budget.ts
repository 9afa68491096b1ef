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

export class MemoryBudget {
  used = 0;
  peak = 0;
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  forFile(limitBytes: number): FileBudget {
    return new FileBudget(this, limitBytes);
  }
}

export class FileBudget {
  used = 0;
  peak = 0;
  /** The file's budget, in bytes. */
  readonly limit: number;
  private readonly process: MemoryBudget;

  constructor(process: MemoryBudget, limit: number) {
    this.process = process;
    this.limit = limit;
  }

  /** Takes `bytes` for `what`; throws (and takes nothing) when a budget would be crossed. */
  charge(bytes: number, what: string): void {
    if (this.used + bytes > this.limit) {
      throw new IntakeLimitError('ERR_INTAKE_MEMORY_BUDGET', `holding ${what} would take the file's memory to ${mib(this.used + bytes)}, over its budget of ${mib(this.limit)} (intake.fileMemoryBytes)`);
    }
    const p = this.process;
    if (p.used + bytes > p.limitBytes) {
      throw new IntakeLimitError('ERR_INTAKE_MEMORY_BUDGET', `holding ${what} would take intake's memory to ${mib(p.used + bytes)}, over its budget of ${mib(p.limitBytes)} for every file together (intake.memoryBytes)`);
    }
    this.used += bytes;
    p.used += bytes;
    if (this.used > this.peak) this.peak = this.used;
    if (p.used > p.peak) p.peak = p.used;
  }

  release(bytes: number): void {
    const b = Math.min(bytes, this.used);
    this.used -= b;
    this.process.used -= b;
  }

  /** The file is done with: whatever it still holds goes back. */
  close(): void {
    this.release(this.used);
  }
}
