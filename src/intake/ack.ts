// The acknowledgement file outbound/<name>.ack.json (DESIGN.md §2). Nothing of it is held
// in memory — a million entries must not be: accepted entries (sequenceNumber, orderId,
// orderSessionKey) are streamed to the temporary ack file chunk by chunk as they are stored,
// rejected entries to a second temporary file as they are found (the two arrive interleaved,
// so one stream cannot hold both arrays), copied in after the accepted ones, and the summary
// is written last (JSON key order carries no meaning). The file appears under its final name
// only by rename, so a merchant never reads half an ack.
import type { FieldError } from '../error-types.ts';
import { createReadStream } from 'node:fs';
import { AtomicFile } from '../atomic-file.ts';
import { RejectedList, type RejectedEntry } from './ack-rejected.ts';
import type { FileBudget } from './budget.ts';

export type { RejectedEntry } from './ack-rejected.ts';

export type AckStatus = 'accepted' | 'partially_accepted' | 'rejected';

/** An accepted entry and the order it became. */
export interface AcceptedEntry {
  sequenceNumber: number | null;
  orderId: string;
  orderSessionKey: string;
}

export interface FileError {
  code: string;
  message: string;
  offset?: number;
  line?: number;
  column?: number;
  /** Field errors of the header. */
  errors?: FieldError[];
}

export interface AckSummary {
  file: string;
  sha256: string;
  mid: string;
  batchId: string | null;
  receivedAt: string;
  finishedAt: string;
  status: AckStatus;
  counts: { entries: number; accepted: number; rejected: number };
  /**
   * What became of the input: `archived` (it held no card number in clear), `deleted` (it
   * did, anywhere in its bytes, or it was rejected whole) or `quarantined` (it could not be
   * stored: a redacted copy is kept for the operator).
   */
  input: 'archived' | 'deleted' | 'quarantined';
  error?: FileError;
  /** Rejected entries counted but not listed, past the ack's size bound (ack-rejected.ts). */
  rejectedNotListed?: { count: number; positions: string };
}

export const ackName = (file: string) => `${file}.ack.json`;

export class AckWriter {
  private readonly file: AtomicFile;
  private readonly outboundDir: string;
  private readonly name: string;
  /** Rejected entries until `finish` copies them in; opened at the first one. */
  private rejectedFile: AtomicFile | undefined;
  private accepted = 0;
  private rejected = 0;
  private rows = 0;
  private readonly list: RejectedList;

  /** `budget`: the file's memory budget, charged with what the rejected list keeps. */
  constructor(outboundDir: string, file: string, budget?: FileBudget) {
    this.outboundDir = outboundDir;
    this.name = file;
    this.file = new AtomicFile(outboundDir, ackName(file));
    this.list = new RejectedList(budget);
  }

  /** Bytes of the input read so far: the rejected list's allowance grows with them. */
  measureInput(bytes: () => number): void {
    this.list.inputBytes = bytes;
  }

  get acceptedCount(): number {
    return this.accepted;
  }

  get rejectedCount(): number {
    return this.rejected;
  }

  /** Entries stored, in sequenceNumber order: one write per chunk. */
  async accept(entries: AcceptedEntry[]): Promise<void> {
    if (entries.length === 0) return;
    let text = '';
    for (const e of entries) text += `${this.accepted++ ? ',' : '{"accepted":['}\n${JSON.stringify(e)}`;
    await this.file.write(text);
  }

  /** `position`: the entry's place in the file, from 1 (its sequenceNumber when valid). */
  async reject(entry: RejectedEntry, position = entry.sequenceNumber ?? 0): Promise<void> {
    this.rejected++;
    const row = this.list.row(entry, position);
    if (row === undefined) return;
    this.rejectedFile ??= new AtomicFile(this.outboundDir, `${ackName(this.name)}.rejected`);
    await this.rejectedFile.write(`${this.rows++ ? ',' : ''}\n${row}`);
  }

  /** Writes the rejected entries and the summary and closes the temporary file; `publish` then renames it into place. */
  async finish(summary: AckSummary): Promise<void> {
    await this.file.write(`${this.accepted ? '\n' : '{"accepted":['}],"rejected":[`);
    if (this.rejectedFile) {
      await this.rejectedFile.end('');
      // utf8 decoding across chunk boundaries: a character split between two reads stays whole.
      for await (const text of createReadStream(this.rejectedFile.tmpPath, { encoding: 'utf8' })) await this.file.write(text as string);
      await this.rejectedFile.discard();
      this.rejectedFile = undefined;
    }
    const notListed = this.list.summary();
    const body = JSON.stringify(notListed ? { ...summary, rejectedNotListed: notListed } : summary);
    await this.file.end(`${this.rows ? '\n' : ''}],${body.slice(1)}\n`);
  }

  publish(): Promise<string> {
    return this.file.publish();
  }

  async discard(): Promise<void> {
    await this.rejectedFile?.discard();
    await this.file.discard();
  }
}
