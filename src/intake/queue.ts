// Files handed over by the SFTP stage are ingested one at a time. A file whose ingest fails
// is never left to fail at every start: a database refusal (a SQLSTATE that will recur) sets
// it aside at once; anything else (a lost connection) is tried again with a doubling delay,
// and set aside after `maxTries`. A file that was being ingested when the process died twice
// (its start recorded before its transaction, intake_starts) is set aside instead of read a
// third time: a file that kills the daemon must not do it again at every start under
// systemd's Restart=. Setting aside = a redacted copy in the quarantine folder, an ack, an
// error line and `rescued_intake_quarantined_total` for the operator. A file whose name is not
// a batch file's is answered with a rejection ack and removed, never read (reject.ts).
import { stat } from 'node:fs/promises';
import { failureKind, sqlState, type FailureKind } from '../sqlstate.ts';
import { closeIngesting } from '../db/queries/staged-batches.ts';
import { clearIntakeStarts, endIntakeStart, recordIntakeStart } from '../db/queries/intake-starts.ts';
import type { Logger } from '../log.ts';
import { intakeQuarantined, intakeRetries } from '../metrics.ts';
import type { ReadyFile } from '../sftp/handover.ts';
import { INTAKE_ERRORS } from './codes.ts';
import { FileHandledElsewhere, ingestFile } from './ingest.ts';
import { ingestUpdates, UPDATES_FILE } from './updates.ts';
import { progressBoard } from './progress-board.ts';
import { quarantineFile } from './quarantine.ts';
import { recordRejection, rejectWhole } from './reject.ts';
import type { IntakeDeps, IntakeFile } from './types.ts';

export interface RetryPolicy {
  /** Tries of one file in all (the first included) before it is set aside. */
  maxTries: number;
  /** Delay before the second try; it doubles for each try after, up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface IngestQueueOptions {
  deps: IntakeDeps;
  policy: RetryPolicy;
  quarantineDir: string;
  outboundFor: (username: string) => Promise<string>;
  log: Logger;
}

export interface IngestQueue {
  onFileReady(file: ReadyFile): Promise<void>;
  /** Aborts the file in progress, cancels the retries waiting (their files stay in inbound/). */
  stop(): Promise<void>;
}

/** Starts of one file, this one included, past which it is set aside: the process died twice in it. */
export const CRASHED_STARTS = 2;

export const retryDelay = (policy: RetryPolicy, tries: number) => Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** (tries - 1));

export function createIngestQueue(opts: IngestQueueOptions): IngestQueue {
  const { deps, policy, log } = opts;
  const signal = deps.signal;
  const waiting = new Map<string, NodeJS.Timeout>();
  const board = progressBoard(deps.db);
  let queue: Promise<void> = Promise.resolve();

  const enqueue = (file: ReadyFile, tries: number, receivedAt: Date) => {
    const run = queue.then(() => ingest(file, tries, receivedAt));
    queue = run;
    return run;
  };

  async function setAside(file: ReadyFile, intakeFile: IntakeFile, err: unknown, kind: FailureKind, tries: number, receivedAt: Date): Promise<void> {
    const state = sqlState(err);
    const code = kind === 'refused' ? 'ERR_INTAKE_STORAGE_REFUSED' : 'ERR_INTAKE_STORAGE_UNAVAILABLE';
    const message = kind === 'refused' ? `${INTAKE_ERRORS[code].message} (SQLSTATE ${state})` : INTAKE_ERRORS[code].message.replace('intake.maxTries tries', `${tries} tries`);
    await quarantine(file, intakeFile, { code, message }, kind, receivedAt, { err, sqlState: state, tries }, 'batch file quarantined: intake could not store it');
  }

  async function quarantine(file: ReadyFile, intakeFile: IntakeFile, error: { code: keyof typeof INTAKE_ERRORS; message: string }, reason: string, receivedAt: Date, fields: Record<string, unknown>, msg: string): Promise<void> {
    try {
      const q = await quarantineFile(opts.quarantineDir, intakeFile, error, receivedAt);
      intakeQuarantined.inc({ reason });
      // A staged ingest's committed part stays stored: its batch ends with what it holds.
      const closed = await closeIngesting(deps.db, file.merchantId, file.name).catch((err: unknown) => void log.warn({ err, mid: file.mid, file: file.name }, 'an ingesting batch of the file could not be closed'));
      for (const b of closed ?? []) log.warn({ mid: file.mid, file: file.name, batchId: b.id, entries: b.entries }, 'batch closed with the entries stored before its file was set aside');
      log.error({ ...fields, mid: file.mid, file: file.name, code: error.code, quarantined: q.path, ack: q.ackPath }, msg);
      const recorded = recordRejection(deps.db, log, file, { error, sha256: q.sha256, receivedAt, finishedAt: new Date(), bytes: file.size });
      // With the database unavailable the row waits for it, not the files queued behind this one.
      if (error.code !== 'ERR_INTAKE_STORAGE_UNAVAILABLE') await recorded;
    } catch (qErr) {
      log.error({ err: qErr, cause: fields.err, mid: file.mid, file: file.name }, 'batch file could not be quarantined; it stays in inbound/ until the next start');
    }
  }

  /** A file whose name is not a batch file's: answered, removed and recorded like any file rejected whole. */
  async function refuseName(file: ReadyFile, intakeFile: IntakeFile, receivedAt: Date, bytes: number): Promise<void> {
    const error = { code: 'ERR_INTAKE_FILE_TYPE', message: INTAKE_ERRORS.ERR_INTAKE_FILE_TYPE.message };
    try {
      const ack = await rejectWhole(deps.db, log, intakeFile, error, { sha256: '', receivedAt, finishedAt: new Date(), bytes });
      log.warn({ mid: file.mid, file: file.name, code: error.code, ack: ack.ackPath }, 'file rejected: not a batch file name');
    } catch (err) {
      // The ack could not be written (a full disk): the file stays, and is offered again at the next start.
      log.error({ err, mid: file.mid, file: file.name }, 'a file with an unsupported name could not be answered; it stays in inbound/');
    }
  }

  /** Records this start of the file; true when the process died in it twice already. */
  async function crashedTwice(file: ReadyFile, placed: { size: number; mtime: Date }): Promise<boolean> {
    const starts = await recordIntakeStart(deps.db, { merchantId: file.merchantId, fileName: file.name, fileBytes: placed.size, fileModifiedAt: placed.mtime });
    return starts > CRASHED_STARTS;
  }

  async function ingest(file: ReadyFile, tries: number, receivedAt: Date): Promise<void> {
    waiting.delete(file.path);
    if (signal?.aborted) return;
    const placed = await stat(file.path).catch(() => undefined);
    if (!placed) return void log.info({ mid: file.mid, file: file.name }, 'file removed before its ingest');
    const intakeFile: IntakeFile = { merchantId: file.merchantId, mid: file.mid, path: file.path, name: file.name, outboundDir: await opts.outboundFor(file.username) };
    if (file.unsupported) return await refuseName(file, intakeFile, receivedAt, placed.size);
    if (deps.cardUpdates && UPDATES_FILE.test(file.name)) return void (await ingestUpdates(deps, intakeFile, deps.cardUpdates));
    // Where the file's transaction holds the only connection, readers are told so for its
    // whole ingest (progress-board.ts): they answer from memory instead of waiting for it.
    const run = () => ingestFile(deps, intakeFile);
    // 'decided': the file has its outcome; 'open': this start ended without one (counted off).
    let end: 'decided' | 'open' | 'unrecorded' = 'unrecorded';
    try {
      const crashed = await crashedTwice(file, placed);
      end = 'open';
      if (crashed) {
        end = 'decided';
        return await quarantine(file, intakeFile, { code: 'ERR_INTAKE_CRASHED', message: INTAKE_ERRORS.ERR_INTAKE_CRASHED.message }, 'crashed', receivedAt, { starts: CRASHED_STARTS }, 'batch file quarantined: the daemon stopped twice while ingesting it');
      }
      await (deps.progressBesideTransaction ? run() : board.holding(run));
      end = 'decided';
    } catch (err) {
      if (err instanceof FileHandledElsewhere) return void log.info({ mid: file.mid, file: file.name }, 'file left to the instance that ingests it');
      if (signal?.aborted) return void log.info({ mid: file.mid, file: file.name }, 'ingest interrupted by shutdown; the file stays in inbound/');
      const kind = failureKind(err);
      if (kind === 'refused' || tries >= policy.maxTries) {
        end = 'decided';
        return await setAside(file, intakeFile, err, kind, tries, receivedAt);
      }
      const delayMs = retryDelay(policy, tries);
      intakeRetries.inc();
      log.warn({ err, mid: file.mid, file: file.name, tries, retryInMs: delayMs }, 'ingest failed; the file will be tried again');
      const timer = setTimeout(() => void enqueue(file, tries + 1, receivedAt), delayMs);
      waiting.set(file.path, timer);
    } finally {
      board.settle(file.merchantId, file.name);
      if (end !== 'unrecorded') await countOff(file, end);
    }
  }

  async function countOff(file: ReadyFile, end: 'decided' | 'open'): Promise<void> {
    try {
      await (end === 'decided' ? clearIntakeStarts : endIntakeStart)(deps.db, file.merchantId, file.name);
    } catch (err) {
      // Left counted, the start only brings the file one crash nearer to the quarantine.
      log.warn({ err, mid: file.mid, file: file.name }, 'the end of an ingest could not be recorded');
    }
  }

  return {
    onFileReady(file) {
      // A new file under the name of one waiting for its retry replaces it.
      clearTimeout(waiting.get(file.path));
      waiting.delete(file.path);
      return enqueue(file, 1, new Date());
    },
    async stop() {
      for (const timer of waiting.values()) clearTimeout(timer);
      waiting.clear();
      await queue;
    },
  };
}
