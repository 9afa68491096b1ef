// The acknowledgement file outbound/<name>.ack.json (DESIGN.md §2). Rejected entries are
// streamed to a temporary file as they are found — a million bad entries must not sit in
// memory — and the summary is written after them (JSON key order carries no meaning). The
// file appears under its final name only by rename, so a merchant never reads half an ack.
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import type { FieldError } from '../errors.ts';
import { tmpPathFor } from '../tmp-name.ts';

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
  error?: FileError;
}

export const ackName = (file: string) => `${file}.ack.json`;

export class AckWriter {
  private readonly tmpPath: string;
  private readonly finalPath: string;
  private readonly out: WriteStream;
  private rejected = 0;

  constructor(outboundDir: string, file: string) {
    this.finalPath = join(outboundDir, ackName(file));
    this.tmpPath = tmpPathFor(outboundDir, ackName(file));
    this.out = createWriteStream(this.tmpPath, { mode: 0o640 });
    this.out.write('{"rejected":[');
  }

  get rejectedCount(): number {
    return this.rejected;
  }

  async reject(entry: RejectedEntry): Promise<void> {
    const ok = this.out.write(`${this.rejected++ ? ',' : ''}\n${JSON.stringify(entry)}`);
    if (!ok) await once(this.out, 'drain');
  }

  /** Writes the summary and closes the temporary file; `publish` then renames it into place. */
  async finish(summary: AckSummary): Promise<void> {
    const body = JSON.stringify(summary);
    this.out.end(`${this.rejected ? '\n' : ''}],${body.slice(1)}\n`);
    await once(this.out, 'finish');
  }

  async publish(): Promise<string> {
    await rename(this.tmpPath, this.finalPath);
    return this.finalPath;
  }

  async discard(): Promise<void> {
    this.out.destroy();
    await rm(this.tmpPath, { force: true });
  }
}
