// The engine as a daemon stage: built from the configuration, started after intake and
// before the HTTP side-port; stopping it drains the attempts in flight.
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { systemClock } from '../clock.ts';
import type { Processor } from '../processors/types.ts';
import { sftpRootDir, userDirs } from '../sftp/paths.ts';
import { createEngine, type Engine } from './index.ts';

/** What the engine takes of the core the daemon opened (src/core.ts, a floor above the stages). */
export interface EngineCore {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
}

export function startEngineStage(core: EngineCore, processor: Processor): Engine {
  const { config } = core;
  // Results files go where the merchant's SFTP user reads: the same data root the SFTP stage serves.
  const root = sftpRootDir(config.dataDir, config.sftp.rootDir);
  const engine = createEngine({
    db: core.database.db,
    processor,
    clock: systemClock,
    log: core.log,
    config: {
      ...config.engine, concurrency: config.processor.concurrency, ratePerSecond: config.processor.ratePerSecond,
      reconcileAfterMs: config.processor.reconcileAfterMs, reconcileTimeoutMs: config.processor.reconcileTimeoutMs, timeoutMs: config.processor.timeoutMs,
    },
    testMode: config.mode === 'sandbox',
    outboundFor: (username) => userDirs(root, username).outbound,
  });
  engine.start();
  core.log.info({ stage: 'engine', processor: processor.name }, 'stage started');
  return engine;
}
