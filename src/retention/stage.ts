// The purge as a daemon stage: on `retention.purgeCron` (hourly by default), the purge of
// src/retention/purge.ts. Every replica schedules it; the advisory lock lets one run it and
// the others skip that round. Stopping waits for the batch in progress, not the whole run.
import { scheduleExclusive } from '../schedule.ts';
import type { Clock } from '../clock.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { sftpRootDir } from '../sftp/paths.ts';
import type { PurgeDeps, PurgeReport } from './purge.ts';
import { purgeAndRecord } from './record.ts';

/** What the stage takes of the core the daemon opened (src/core.ts, a floor above). */
export interface RetentionCore {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
}

export interface RetentionStage {
  /** One purge now, as the schedule runs it; undefined when another instance held the lock. */
  runOnce(): Promise<PurgeReport | undefined>;
  stop(): Promise<void>;
}

export function purgeDeps(core: RetentionCore, clock: Clock): PurgeDeps {
  const { config } = core;
  return { database: core.database, clock, settings: config.retention, dataDir: config.dataDir, sftpRoot: sftpRootDir(config.dataDir, config.sftp.rootDir) };
}

export function startRetentionStage(core: RetentionCore, clock: Clock): RetentionStage {
  const log = core.log.child({ component: 'retention' });
  const { purgeCron } = core.config.retention;
  let stopping = false;
  const runOnce = () => purgeAndRecord(purgeDeps(core, clock), log, { dryRun: false, shouldStop: () => stopping });
  const schedule = scheduleExclusive(purgeCron, { name: 'rescued-purge', setting: 'retention.purgeCron' }, () => runOnce().catch((err: unknown) => log.error({ err }, 'purge failed; the next round tries again')), log);
  return {
    runOnce,
    async stop() {
      stopping = true;
      await schedule.stop();
    },
  };
}
