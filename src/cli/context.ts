// Shared plumbing of the CLI commands: load the configuration, open storage, run the command,
// close storage, map failures to exit codes (78 for configuration, 1 otherwise).
import type { Command } from 'commander';
import { loadConfig, ConfigError, EXIT_CONFIG, type ResolvedConfig } from '../config/index.ts';
import { createLogger, type Logger } from '../log.ts';
import type { Core } from '../daemon.ts';
import { RescuedError } from '../errors.ts';
import { DataDirLockedError } from '../db/lock.ts';
import pino from 'pino';

export function print(value: unknown, json = false): void {
  process.stdout.write(`${json || typeof value !== 'string' ? JSON.stringify(value, null, 2) : value}\n`);
}

export function fail(err: unknown, log?: Logger): number {
  if (err instanceof ConfigError) {
    process.stderr.write(`rescued: configuration error: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  if (err instanceof RescuedError || err instanceof DataDirLockedError) {
    process.stderr.write(`rescued: ${err.message}\n`);
    return 1;
  }
  if (log) log.fatal({ err }, 'command failed');
  else process.stderr.write(`rescued: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}

export function configFrom(program: Command): ResolvedConfig {
  return loadConfig({ configFile: program.opts<{ config?: string }>().config });
}

/** CLI commands log to stderr (stdout is their output) at warn and above unless configured lower. */
function cliLogger(config: ResolvedConfig): Logger {
  const level = ['debug', 'trace'].includes(config.log.level) ? config.log.level : 'warn';
  return createLogger({ level, destination: pino.destination({ dest: 2, sync: true }) });
}

export async function withCore(program: Command, body: (core: Core) => Promise<void>): Promise<void> {
  let core: Core | undefined;
  let log: Logger | undefined;
  try {
    const config = configFrom(program);
    log = cliLogger(config);
    // Loaded on use so that `--help` does not pay for the database drivers.
    const { openCore } = await import('../daemon.ts');
    core = await openCore(config, log);
    await body(core);
  } catch (err) {
    process.exitCode = fail(err, log);
  } finally {
    await core?.database.close();
  }
}
