// Intake of one complete batch file, as DESIGN.md §2 decides: a file that is not valid JSON,
// whose header is invalid or unauthorised, or that was already ingested is rejected whole —
// nothing kept; otherwise each entry is accepted or rejected on its own. Accepted entries
// become SUBMITTED orders in ONE transaction, so a crash at any point leaves either the whole
// file or nothing, and the file (still in inbound/) is ingested again from the start.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { validateBatchHeader } from '../domain/index.ts';
import { findIngestedBatch, insertBatch, updateBatchCounts } from '../db/queries/batches.ts';
import { claimBatchFile } from '../db/queries/claim-batch-file.ts';
import { stat } from 'node:fs/promises';
import { AckWriter, type AckStatus, type AckSummary, type FileError } from './ack.ts';
import { BatchSyntaxError } from './scanner.ts';
import { prescan, type Prescan } from './prescan.ts';
import { INTAKE_ERRORS } from './codes.ts';
import { streamEntries, type Tx } from './pass-two.ts';
import { archiveInput } from './archive.ts';
import { fileHasCardNumber } from './card-scan.ts';
import { DEFAULT_LIMITS, IntakeLimitError } from './limits.ts';
import { batchEntries } from '../metrics.ts';
import type { IntakeDeps, IntakeFile } from './types.ts';
import { intakeProgress } from './progress.ts';


export interface IntakeResult extends AckSummary {
  ackPath: string;
}

class FileRejection extends Error {
  readonly fileError: FileError;
  constructor(code: keyof typeof INTAKE_ERRORS, message?: string, position?: Pick<FileError, 'offset' | 'line' | 'column'>, errors?: FileError['errors']) {
    super(message ?? INTAKE_ERRORS[code].message);
    this.fileError = { code, message: this.message, ...position, ...(errors ? { errors } : {}) };
  }
}

/**
 * Another replica holds this file (it sees the same inbound folder): it writes the ack and
 * moves the file, so this one leaves both alone.
 */
export class FileHandledElsewhere extends Error {
  constructor(file: string) {
    super(`${file} is being ingested, or was just ingested, by another instance`);
  }
}

const syntaxRejection = (err: BatchSyntaxError) =>
  new FileRejection('ERR_INTAKE_SYNTAX', `The file is not valid JSON: ${err.message}. Nothing was kept.`, { offset: err.offset, line: err.line, column: err.column });

async function checkHeader(deps: IntakeDeps, file: IntakeFile, pre: Prescan): Promise<{ expiryDateUtc: string | undefined }> {
  const header = validateBatchHeader(pre.header);
  if (!header.ok) throw new FileRejection('ERR_INTAKE_HEADER_INVALID', undefined, undefined, header.errors);
  if (header.value.mid.toLowerCase() !== file.mid.toLowerCase()) {
    throw new FileRejection('ERR_INTAKE_UNAUTHORIZED', 'The mid in the file is not the merchant of this SFTP account. Nothing was kept.');
  }
  try {
    await deps.tokens.verify(header.value.authorizationToken, { expectedMid: file.mid });
  } catch (err) {
    throw new FileRejection('ERR_INTAKE_UNAUTHORIZED', `authorizationToken is not accepted: ${(err as Error).message} Nothing was kept.`);
  }
  return { expiryDateUtc: header.value.expiryDateUtc };
}

/**
 * A file with the SHA-256 of an ingested batch is a duplicate — unless it is that very file,
 * placed before that batch finished, which another replica ingested and is about to move.
 */
async function refuseIngested(db: Db | Tx, file: IntakeFile, sha256: string, placedAt: Date): Promise<void> {
  const existing = await findIngestedBatch(db, file.merchantId, sha256);
  if (!existing) return;
  if (existing.fileName === file.name && placedAt <= existing.finishedAt) throw new FileHandledElsewhere(file.name);
  throw new FileRejection('ERR_INTAKE_DUPLICATE_FILE', `${INTAKE_ERRORS.ERR_INTAKE_DUPLICATE_FILE.message} (batch ${existing.id}, ${existing.fileName})`);
}

function statusOf(accepted: number, rejected: number): AckStatus {
  if (accepted === 0) return 'rejected';
  return rejected === 0 ? 'accepted' : 'partially_accepted';
}

export async function ingestFile(deps: IntakeDeps, file: IntakeFile): Promise<IntakeResult> {
  const now = deps.now ?? (() => new Date());
  const receivedAt = now();
  // deps.log is the intake stage's child (component: 'intake'); a file adds its own fields.
  const log = deps.log.child({ mid: file.mid, file: file.name });
  const base = { file: file.name, mid: file.mid, receivedAt: receivedAt.toISOString() };
  let sha256 = '';
  let ack = new AckWriter(file.outboundDir, file.name);
  const progress = intakeProgress(deps.db, deps.progressBesideTransaction ?? false, log);
  try {
    let pre: Prescan;
    try {
      pre = await prescan(file.path, file.name, deps.limits ?? DEFAULT_LIMITS);
    } catch (err) {
      if (err instanceof BatchSyntaxError) throw syntaxRejection(err);
      if (err instanceof IntakeLimitError) throw new FileRejection(err.code, `${INTAKE_ERRORS[err.code].message.replace(/; nothing was kept\.$/, '')}: ${err.message}; nothing was kept.`);
      throw err;
    }
    sha256 = pre.sha256;
    const placedAt = (await stat(file.path)).mtime;
    await refuseIngested(deps.db, file, sha256, placedAt);
    const { expiryDateUtc } = await checkHeader(deps, file, pre);
    log.info({ entries: pre.entryCount, sha256 }, 'batch ingest started');
    // Read beside the ingest: whether the raw bytes hold a card number decides archive or delete.
    const carded = fileHasCardNumber(file.path, file.name);
    carded.catch(() => {});

    const batchId = randomUUID();
    const counts = await deps.db.transaction(async (tx) => {
      if (!(await claimBatchFile(tx, file.merchantId, file.name))) throw new FileHandledElsewhere(file.name);
      // Checked again under the lock: a replica may have committed this file since the check above.
      await refuseIngested(tx, file, sha256, placedAt);
      await insertBatch(tx, { id: batchId, merchantId: file.merchantId, fileName: file.name, sha256, status: 'accepted', entryCount: 0, acceptedCount: 0, rejectedCount: 0, receivedAt });
      await progress.start({ batchId, merchantId: file.merchantId, fileName: file.name, entryCount: pre.entryCount, startedAt: receivedAt });
      const ctx = { merchantId: file.merchantId, batchId, mode: deps.mode, defaultExpiryDateUtc: expiryDateUtc, now: receivedAt };
      const c = await streamEntries(tx, deps, file, ack, ctx, (so) => progress.update(so));
      const status = statusOf(c.accepted, c.rejected);
      await updateBatchCounts(tx, batchId, { status, entryCount: c.entries, acceptedCount: c.accepted, rejectedCount: c.rejected });
      const input: AckSummary['input'] = c.carriedCardNumbers || (await carded) ? 'deleted' : 'archived';
      await ack.finish({ ...base, sha256, batchId, finishedAt: now().toISOString(), status, counts: c, input });
      await progress.end(tx);
      return { ...c, status, input };
    });
    const ackPath = await ack.publish();
    batchEntries.inc({ result: 'accepted' }, counts.accepted);
    batchEntries.inc({ result: 'rejected' }, counts.rejected);
    await archiveInput(deps.archiveDir, file, { batchId, deleteInstead: counts.input === 'deleted' });
    log.info({ batchId, status: counts.status, entries: counts.entries, accepted: counts.accepted, rejected: counts.rejected, ms: now().getTime() - receivedAt.getTime() }, 'batch ingested');
    return { ...base, sha256, batchId, finishedAt: now().toISOString(), status: counts.status, counts: { entries: counts.entries, accepted: counts.accepted, rejected: counts.rejected }, input: counts.input, ackPath };
  } catch (err) {
    await progress.abandon();
    await ack.discard();
    if (err instanceof FileHandledElsewhere) throw err;
    const rejection = err instanceof FileRejection ? err : err instanceof BatchSyntaxError ? syntaxRejection(err) : undefined;
    if (!rejection) throw err;
    ack = new AckWriter(file.outboundDir, file.name);
    const summary: AckSummary = { ...base, sha256, batchId: null, finishedAt: now().toISOString(), status: 'rejected', counts: { entries: 0, accepted: 0, rejected: 0 }, input: 'deleted', error: rejection.fileError };
    await ack.finish(summary);
    const ackPath = await ack.publish();
    // A rejected file is removed: the ack holds the diagnosis, the merchant holds the file, and
    // a file we could not read may carry card numbers we cannot find to protect.
    await archiveInput(deps.archiveDir, file, { batchId: null, deleteInstead: true });
    log.warn({ code: rejection.fileError.code, line: rejection.fileError.line, column: rejection.fileError.column }, 'batch rejected');
    return { ...summary, ackPath };
  }
}
