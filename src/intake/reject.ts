// A file rejected whole — not JSON, a bad or unauthorised header, a limit, a duplicate, a name
// that is not a batch file's, or set aside by the queue — leaves a trace beside its ack: a
// batch row with status `rejected`, no entries, and the ack's error code and message, so
// `rescued batches list|show`, GET /v1/batches and the console list it with its reason.
// Nothing of the file's content is kept: the message is scrubbed of anything shaped like a
// card number (a JSON parse error may quote the text it stopped at).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Db } from '../db/client.ts';
import { insertBatch } from '../db/queries/batches.ts';
import type { Logger } from '../log.ts';
import { scrubText } from '../scrub.ts';
import { AckWriter, type AckSummary, type FileError } from './ack.ts';
import type { IntakeFile } from './types.ts';

/** Longest message kept in the row: a header's field errors are in the ack, not here. */
const MAX_MESSAGE = 1000;

export interface WholeRejection {
  error: Pick<FileError, 'code' | 'message'>;
  /** The file's SHA-256 when it was read to the end; '' otherwise. */
  sha256: string;
  receivedAt: Date;
  finishedAt: Date;
  /** The file's size as received, when known. */
  bytes: number | null;
}

/**
 * Records the rejection as a batch row. Best effort: the ack is the merchant's answer and is
 * written whatever happens here (the database may be the very reason the file was set aside).
 */
export async function recordRejection(db: Db, log: Logger, file: Pick<IntakeFile, 'merchantId' | 'name'>, r: WholeRejection): Promise<string | null> {
  const id = randomUUID();
  try {
    await insertBatch(db, {
      id, merchantId: file.merchantId, fileName: file.name, sha256: r.sha256, status: 'rejected',
      entryCount: 0, acceptedCount: 0, rejectedCount: 0, receivedAt: r.receivedAt, finishedAt: r.finishedAt,
      errorCode: r.error.code, errorMessage: scrubText(r.error.message).slice(0, MAX_MESSAGE), fileBytes: r.bytes,
    });
    return id;
  } catch (err) {
    log.warn({ err, file: file.name, code: r.error.code }, 'the rejection of a batch file could not be recorded; its ack was written');
    return null;
  }
}

/** A file rejected whole: its record, its ack, then the input removed (it may hold card numbers). */
export async function rejectWhole(db: Db, log: Logger, file: IntakeFile & { mid: string }, error: FileError, r: Omit<WholeRejection, 'error'>): Promise<AckSummary & { ackPath: string }> {
  const summary: AckSummary = {
    file: file.name, mid: file.mid, receivedAt: r.receivedAt.toISOString(), sha256: r.sha256, batchId: null,
    finishedAt: r.finishedAt.toISOString(), status: 'rejected', counts: { entries: 0, accepted: 0, rejected: 0 }, input: 'deleted', error,
  };
  // Recorded first: once the ack is there, the listings already show the rejection.
  await recordRejection(db, log, file, { ...r, error });
  const ack = new AckWriter(file.outboundDir, file.name);
  await ack.finish(summary);
  const ackPath = await ack.publish();
  // The merchant holds the file and the ack the diagnosis; a file we could not read may carry
  // card numbers we cannot find to protect.
  await rm(file.path, { force: true });
  return { ...summary, ackPath };
}
