// The rejected entries of an ack, in a size bounded by the file they came from. A 900 KB file
// of 300,001 `{}` once gave a 278 MB ack (each entry's errors written in full): now
// - the first entry with a given set of errors carries them (at most MAX_ERRORS_PER_ROW of
//   them, field names cut at MAX_FIELD_CHARS), every later entry with the same set names it
//   instead (`"sameErrorsAs": <its position>`; a row whose sequenceNumber is missing or not its
//   position in the file says its `position`);
// - once MAX_ERROR_SETS different sets were written, or the rows would take the ack past its
//   allowance (ACK_BYTES_PER_INPUT_BYTE times the bytes of the file read so far, plus
//   ACK_CONSTANT_BYTES), further rejected entries are only counted and listed by position, in
//   ranges ("rejectedNotListed": {"count", "positions": "5-9,12"}).
// So the ack stays within ACK_BYTES_PER_INPUT_BYTE × the file + a constant, whatever its
// entries (docs/sftp-and-batches.md, "Acknowledgement file"). The memory it keeps (the sets
// seen, the ranges) is charged to the file's budget.
import type { FieldError } from '../error-types.ts';
import type { FileBudget } from './budget.ts';

export interface RejectedEntry {
  sequenceNumber: number | null;
  orderId: string | null;
  errors: FieldError[];
}

export const MAX_ERROR_SETS = 100;
export const MAX_ERRORS_PER_ROW = 20;
const MAX_FIELD_CHARS = 256;
export const ACK_BYTES_PER_INPUT_BYTE = 8;
export const ACK_CONSTANT_BYTES = 2 * 1024 * 1024;
/** Held per range of positions not listed (two numbers in an array). */
const RANGE_COST = 16;

const cut = (text: string) => (text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text);

/** What an ack row carries of an entry's errors. */
function rowErrors(errors: FieldError[]): { errors: FieldError[]; moreErrors?: number } {
  const shown = errors.slice(0, MAX_ERRORS_PER_ROW).map((e) => ({ ...e, field: cut(e.field) }));
  return errors.length > MAX_ERRORS_PER_ROW ? { errors: shown, moreErrors: errors.length - MAX_ERRORS_PER_ROW } : { errors: shown };
}

/** Positions as ranges, e.g. [5,9, 12,12] → "5-9,12". */
function rangesText(ranges: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ranges.length; i += 2) parts.push(ranges[i] === ranges[i + 1] ? `${ranges[i]}` : `${ranges[i]}-${ranges[i + 1]}`);
  return parts.join(',');
}

export class RejectedList {
  /** Rows written: the text to append to the ack's `rejected` array, and its size. */
  private readonly sets = new Map<string, number>();
  private written = 0;
  private notListed = 0;
  private readonly ranges: number[] = [];
  private readonly budget: FileBudget | undefined;
  /** Bytes of the input read so far: the ack's allowance grows with them. */
  inputBytes: () => number = () => 0;

  constructor(budget?: FileBudget) {
    this.budget = budget;
  }

  /** The row to write for `entry` at `position` (1-based), or undefined: only counted. */
  row(entry: RejectedEntry, position: number): string | undefined {
    const shown = rowErrors(entry.errors);
    const signature = JSON.stringify(shown);
    const first = this.sets.get(signature);
    let text: string | undefined;
    const where = entry.sequenceNumber === position ? {} : { position };
    if (first !== undefined) text = JSON.stringify({ sequenceNumber: entry.sequenceNumber, ...where, orderId: entry.orderId, sameErrorsAs: first });
    else if (this.sets.size < MAX_ERROR_SETS) text = JSON.stringify({ sequenceNumber: entry.sequenceNumber, ...where, orderId: entry.orderId, ...shown });
    // Each row is written after a comma and a line break.
    if (text !== undefined && this.written + text.length + 2 <= this.allowance()) {
      if (first === undefined) {
        this.budget?.charge(2 * signature.length, 'the ack\'s list of errors');
        this.sets.set(signature, position);
      }
      this.written += text.length + 2;
      return text;
    }
    this.unlisted(position);
    return undefined;
  }

  /**
   * Half the ack's bound goes to rows. The other half holds the positions not listed: at most
   * eight characters each ("1000000,"), for entries of at least two bytes ("0,").
   */
  private allowance(): number {
    return (ACK_BYTES_PER_INPUT_BYTE * this.inputBytes() + ACK_CONSTANT_BYTES) / 2;
  }

  private unlisted(position: number): void {
    this.notListed++;
    const last = this.ranges.length - 1;
    if (last > 0 && this.ranges[last] === position - 1) {
      this.ranges[last] = position;
      return;
    }
    this.budget?.charge(RANGE_COST, 'the ack\'s list of entries not listed');
    this.ranges.push(position, position);
  }

  /** The summary's `rejectedNotListed`, when any entry was only counted. */
  summary(): { count: number; positions: string } | undefined {
    return this.notListed ? { count: this.notListed, positions: rangesText(this.ranges) } : undefined;
  }
}
