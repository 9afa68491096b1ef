// The acknowledgement file outbound/<name>.ack.json (DESIGN.md §2). Rejected entries are
// streamed to a temporary file as they are found — a million bad entries must not sit in
// memory — and the summary is written after them (JSON key order carries no meaning). The
// file appears under its final name only by rename, so a merchant never reads half an ack.
import type { FieldError } from '../error-types.ts';
import { AtomicFile } from '../atomic-file.ts';

export type AckStatus = 'accepted' | 'partially_accepted' | 'rejected';

export interface RejectedEntry {
  sequenceNumber: number | null;
  orderId: string | null;
  errors: FieldError[];
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
}

export const ackName = (file: string) => `${file}.ack.json`;

export class AckWriter {
  private readonly file: AtomicFile;
  private rejected = 0;

  constructor(outboundDir: string, file: string) {
    this.file = new AtomicFile(outboundDir, ackName(file));
  }

  get rejectedCount(): number {
    return this.rejected;
  }

  async reject(entry: RejectedEntry): Promise<void> {
    await this.file.write(`${this.rejected++ ? ',' : '{"rejected":['}\n${JSON.stringify(entry)}`);
  }

  /** Writes the summary and closes the temporary file; `publish` then renames it into place. */
  async finish(summary: AckSummary): Promise<void> {
    const body = JSON.stringify(summary);
    await this.file.end(`${this.rejected ? '\n' : '{"rejected":['}],${body.slice(1)}\n`);
  }

  publish(): Promise<string> {
    return this.file.publish();
  }

  discard(): Promise<void> {
    return this.file.discard();
  }
}
