// Shared plumbing of the CLI commands: load the configuration, open storage, run the command,
// close storage, map failures to exit codes (78 for configuration, 1 otherwise). Output goes
// through the program's CliIo, so the same commands run in `rescued` and in-process.
import type { Command } from 'commander';
import { loadConfig, ConfigError, EXIT_CONFIG, type ResolvedConfig } from '../config/index.ts';
import { createLogger, type Logger } from '../log.ts';
import type { Core } from '../core.ts';
import { RescuedError } from '../errors.ts';
import { DataDirLockedError } from '../db/lock.ts';
import { printerFor, processIo, type CliIo, type Print } from './io.ts';
import pino from 'pino';

const ios = new WeakMap<Command, CliIo>();

/** Binds a program (and so every command under it) to where it reads and writes. */
export function bindIo(program: Command, io: CliIo): void {
  ios.set(program, io);
  program.configureOutput({ writeOut: io.out, writeErr: io.err });
  // In-process, --help and a usage error must not end the host process: commander throws
  // a CommanderError carrying the exit code instead.
  if (io !== processIo) program.exitOverride();
}

export function ioOf(program: Command): CliIo {
  let root = program;
  while (root.parent) root = root.parent;
  return ios.get(root) ?? processIo;
}

export function fail(err: unknown, io: CliIo, log?: Logger): number {
  if (err instanceof ConfigError) {
    io.err(`rescued: configuration error: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  if (err instanceof RescuedError || err instanceof DataDirLockedError) {
    io.err(`rescued: ${err.message}\n`);
    return 1;
  }
  if (log) log.fatal({ err }, 'command failed');
  else io.err(`rescued: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}

export function configFrom(program: Command): ResolvedConfig {
  return loadConfig({ configFile: program.opts<{ config?: string }>().config, env: ioOf(program).env });
}

/** CLI commands log to stderr (stdout is their output) at warn and above unless configured lower. */
function cliLogger(config: ResolvedConfig, io: CliIo): Logger {
  const level = ['debug', 'trace'].includes(config.log.level) ? config.log.level : 'warn';
  const destination = io === processIo ? pino.destination({ dest: 2, sync: true }) : { write: (line: string) => io.err(line) };
  return createLogger({ level, destination });
}

export async function withCore(program: Command, body: (core: Core, print: Print) => Promise<void>): Promise<void> {
  const io = ioOf(program);
  let core: Core | undefined;
  let log: Logger | undefined;
  try {
    const config = configFrom(program);
    log = cliLogger(config, io);
    // Loaded on use so that `--help` does not pay for the database drivers.
    const { openCore } = await import('../core.ts');
    core = await openCore(config, log, io.database);
    await body(core, printerFor(io));
  } catch (err) {
    io.setExitCode(fail(err, io, log));
  } finally {
    if (core && !io.database) await core.database.close();
  }
}
