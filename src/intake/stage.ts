// The intake stage: complete batch files handed over by the SFTP stage (uploads and the
// inbound watcher) are ingested one at a time, through the retrying queue (queue.ts).
// Stopping aborts the file in progress — its transaction rolls back and the file stays in
// inbound/, to be ingested again from the start by the next process — and waits for it, so
// storage closes after intake.
import { archiveDir, quarantineDir } from '../config/paths.ts';
import type { IntakeCore as Core } from './stage-core.ts';
import type { Db } from '../db/client.ts';
import type { ReadyFile } from '../sftp/handover.ts';
import { createVault } from '../vault/service.ts';
import { sandboxTestCards } from '../vault/test-cards.ts';
import { vaultCardResolver } from './cards.ts';
import { createIngestQueue } from './queue.ts';
import { MemoryBudget } from './budget.ts';
import type { IntakeDeps } from './types.ts';
import type { ApplyCardUpdate } from './updates.ts';

export interface IntakeStage {
  onFileReady(file: ReadyFile): Promise<void>;
  stop(): Promise<void>;
}

export function createIntakeStage(core: Core, outboundFor: (username: string) => Promise<string>, cardUpdates?: ApplyCardUpdate): IntakeStage {
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
    clockSkewMs: config.api.clockSkewSeconds * 1000,
    log,
    archiveDir: archiveDir(config.dataDir),
    limits: config.intake,
    budget: new MemoryBudget(config.intake.memoryBytes),
    signal: abort.signal,
    progressBesideTransaction: core.database.kind === 'postgres' && config.database.poolSize > 1,
    tryLock: (key) => core.database.tryLock(key),
    stagedCommitEntries: config.intake.stagedCommitEntries,
    onChunkCommitted: async (c) => {
      if (config.intake.pauseAfterCommitMs === 0) return;
      log.info({ batchId: c.batchId, entries: c.entries, total: c.total, pauseMs: config.intake.pauseAfterCommitMs }, 'batch entries committed; pausing (intake.pauseAfterCommitMs)');
      await new Promise((resolve) => setTimeout(resolve, config.intake.pauseAfterCommitMs));
    },
    ...(cardUpdates ? { cardUpdates } : {}),
  };
  const queue = createIngestQueue({ deps, policy: config.intake, quarantineDir: quarantineDir(config.dataDir), outboundFor, log });
  return {
    onFileReady: (file) => queue.onFileReady(file),
    async stop() {
      abort.abort();
      await queue.stop();
    },
  };
}
