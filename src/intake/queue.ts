// Files handed over by the SFTP stage are ingested one at a time. A file whose ingest fails
// is never left to fail at every start: a database refusal (a SQLSTATE that will recur) sets
// it aside at once; anything else (a lost connection) is tried again with a doubling delay,
// and set aside after `maxTries`. Setting aside = a redacted copy in the quarantine folder,
// an ack, an error line and `rescued_intake_quarantined_total` for the operator.
import { stat } from 'node:fs/promises';
import { failureKind, sqlState, type FailureKind } from '../db/errors.ts';
import type { Logger } from '../log.ts';
import { intakeQuarantined, intakeRetries } from '../metrics.ts';
import type { ReadyFile } from '../sftp/handover.ts';
import { INTAKE_ERRORS } from './codes.ts';
import { FileHandledElsewhere, ingestFile } from './ingest.ts';
import { progressBoard } from './progress-board.ts';
import { quarantineFile } from './quarantine.ts';
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
    try {
      const q = await quarantineFile(opts.quarantineDir, intakeFile, { code, message }, receivedAt);
      intakeQuarantined.inc({ reason: kind });
      log.error({ err, mid: file.mid, file: file.name, code, sqlState: state, tries, quarantined: q.path, ack: q.ackPath }, 'batch file quarantined: intake could not store it');
    } catch (qErr) {
      log.error({ err: qErr, cause: err, mid: file.mid, file: file.name }, 'batch file could not be quarantined; it stays in inbound/ until the next start');
    }
  }

  async function ingest(file: ReadyFile, tries: number, receivedAt: Date): Promise<void> {
    waiting.delete(file.path);
    if (signal?.aborted) return;
    if (tries > 1 && !(await stat(file.path).catch(() => undefined))) return void log.info({ mid: file.mid, file: file.name }, 'file removed before its retry');
    const intakeFile: IntakeFile = { merchantId: file.merchantId, mid: file.mid, path: file.path, name: file.name, outboundDir: await opts.outboundFor(file.username) };
    // Where the file's transaction holds the only connection, readers are told so for its
    // whole ingest (progress-board.ts): they answer from memory instead of waiting for it.
    const run = () => ingestFile(deps, intakeFile);
    try {
      await (deps.progressBesideTransaction ? run() : board.holding(run));
    } catch (err) {
      if (err instanceof FileHandledElsewhere) return void log.info({ mid: file.mid, file: file.name }, 'file left to the instance that ingests it');
      if (signal?.aborted) return void log.info({ mid: file.mid, file: file.name }, 'ingest interrupted by shutdown; the file stays in inbound/');
      const kind = failureKind(err);
      if (kind === 'refused' || tries >= policy.maxTries) return setAside(file, intakeFile, err, kind, tries, receivedAt);
      const delayMs = retryDelay(policy, tries);
      intakeRetries.inc();
      log.warn({ err, mid: file.mid, file: file.name, tries, retryInMs: delayMs }, 'ingest failed; the file will be tried again');
      const timer = setTimeout(() => void enqueue(file, tries + 1, receivedAt), delayMs);
      waiting.set(file.path, timer);
    } finally {
      board.settle(file.merchantId, file.name);
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
