// The intake stage: complete batch files handed over by the SFTP stage (uploads and the
// inbound watcher) are ingested one at a time. Stopping aborts the file in progress — its
// transaction rolls back and the file stays in inbound/, to be ingested again from the start
// by the next process — and waits for it, so storage closes after intake.
import { join } from 'node:path';
import type { Core } from '../core.ts';
import type { Db } from '../db/client.ts';
import type { ReadyFile } from '../sftp/handover.ts';
import { createVault } from '../vault/service.ts';
import { sandboxTestCards } from '../vault/test-cards.ts';
import { vaultCardResolver } from './cards.ts';
import { FileHandledElsewhere, ingestFile } from './ingest.ts';
import type { IntakeDeps } from './types.ts';

export interface IntakeStage {
  onFileReady(file: ReadyFile): Promise<void>;
  stop(): Promise<void>;
}

export function createIntakeStage(core: Core, outboundFor: (username: string) => Promise<string>): IntakeStage {
  const { config } = core;
  const log = core.log.child({ component: 'intake' });
  const abort = new AbortController();
  const testCards = config.mode === 'sandbox' ? sandboxTestCards() : undefined;
  const deps: IntakeDeps = {
    db: core.database.db,
    tokens: core.tokens,
    // Vault writes for full card numbers go through the file's transaction (see cards.ts).
    cards: vaultCardResolver((tx) => createVault({ db: tx as unknown as Db, ring: core.keyRing, fingerprintKey: config.vault.fingerprintKey, mode: config.mode, testCards }), testCards),
    mode: config.mode,
    log,
    archiveDir: join(config.dataDir, 'archive'),
    limits: config.intake,
    signal: abort.signal,
  };
  let queue: Promise<void> = Promise.resolve();

  async function ingest(file: ReadyFile): Promise<void> {
    if (abort.signal.aborted) return;
    try {
      await ingestFile(deps, { merchantId: file.merchantId, mid: file.mid, path: file.path, name: file.name, outboundDir: await outboundFor(file.username) });
    } catch (err) {
      if (err instanceof FileHandledElsewhere) log.info({ mid: file.mid, file: file.name }, 'file left to the instance that ingests it');
      else if (abort.signal.aborted) log.info({ mid: file.mid, file: file.name }, 'ingest interrupted by shutdown; the file stays in inbound/');
      else log.error({ err, mid: file.mid, file: file.name }, 'ingest failed; the file stays in inbound/ and is retried at the next start');
    }
  }

  return {
    onFileReady(file) {
      const run = queue.then(() => ingest(file));
      queue = run;
      return run;
    },
    async stop() {
      abort.abort();
      await queue;
    },
  };
}
