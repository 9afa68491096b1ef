// Shared plumbing of the CLI commands: load the configuration, open storage (or hand the
// command to the daemon holding the embedded database), run the command, close storage, map
// failures to exit codes (78 for configuration, 1 otherwise). Output goes through the
// program's CliIo, so the same commands run in `rescued`, in tests, and inside the daemon.
import type { Command } from 'commander';
// The configuration's schema and the logger are loaded when a command runs, not on import:
// `rescued --help` needs neither (issue 28: their imports were most of what --help still cost).
import { ConfigError, EXIT_CONFIG } from '../config/error.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { Logger } from '../log.ts';
import type { Core } from '../core.ts';
import { RescuedError } from '../errors.ts';
import { DataDirLockedError } from '../db/lock.ts';
import { NEVER_FORWARDED } from '../admin/never-forwarded.ts';
import { printerFor, processIo, readText, type CliIo, type Print } from '../admin/io.ts';

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
  if (err instanceof RescuedError || err instanceof DataDirLockedError || err instanceof InputFileError) {
    io.err(`rescued: ${err.message}\n`);
    return 1;
  }
  if (log) log.fatal({ err }, 'command failed');
  else io.err(`rescued: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}

export async function configFrom(program: Command): Promise<ResolvedConfig> {
  const io = ioOf(program);
  if (io.config) return io.config;
  const { loadConfig } = await import('../config/index.ts');
  return loadConfig({ configFile: program.opts<{ config?: string }>().config, env: io.env });
}

/** A file a command names could not be read: one line, the same whether read here or for a daemon. */
export class InputFileError extends Error {
  constructor(path: string, cause: unknown) {
    const e = cause as NodeJS.ErrnoException;
    const why = ({ ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a folder' } as Record<string, string>)[e?.code ?? ''] ?? e?.message;
    super(`cannot read ${path}: ${why}`);
    this.name = 'InputFileError';
  }
}

/** A file the command names (a public key, credentials), read where the operator typed the command. */
export async function readInput(program: Command, path: string): Promise<string> {
  try {
    return await readText(ioOf(program), path);
  } catch (err) {
    throw new InputFileError(path, err);
  }
}

/**
 * On the embedded database, a running daemon holds the data folder: the command line is sent
 * to it and runs there, on its open database (docs/operations.md). True when it ran there.
 */
async function ranInDaemon(program: Command, io: CliIo, config: ResolvedConfig): Promise<boolean> {
  if (io.database || config.database.url || NEVER_FORWARDED.has(program.args[0] ?? '')) return false;
  const { forwardToDaemon } = await import('../admin/client.ts');
  // Every caller parses user arguments (src/main.ts too), so rawArgs is the command line as typed.
  const argv = (program as Command & { rawArgs: string[] }).rawArgs;
  const code = await forwardToDaemon({ dataDir: config.dataDir, argv, io });
  if (code === undefined) return false;
  io.setExitCode(code);
  return true;
}

/** CLI commands log to stderr (stdout is their output) at warn and above unless configured lower. */
async function cliLogger(config: ResolvedConfig, io: CliIo): Promise<Logger> {
  const [{ createLogger }, { default: pino }] = await Promise.all([import('../log.ts'), import('pino')]);
  const level = ['debug', 'trace'].includes(config.log.level) ? config.log.level : 'warn';
  const destination = io === processIo ? pino.destination({ dest: 2, sync: true }) : { write: (line: string) => io.err(line) };
  return createLogger({ level, destination });
}

/** What a command that only reads needs: the configuration, a logger and the database. */
export type Reader = Pick<Core, 'config' | 'log' | 'database'>;

/**
 * Runs a command that only reads (orders, report): like withCore, but on the database alone,
 * opened for reading (src/db/client.ts, openForReading: on a server one connection, no
 * migration or lock), without the vault, tokens and merchant services, whose imports and
 * set-up were most of such a command's time beside a daemon on PostgreSQL (issue 28).
 */
export async function withReader(program: Command, body: (reader: Reader, print: Print) => Promise<void>): Promise<void> {
  const io = ioOf(program);
  let reader: Reader | undefined;
  let log: Logger | undefined;
  try {
    const config = await configFrom(program);
    if (await ranInDaemon(program, io, config)) return;
    log = await cliLogger(config, io);
    if (io.database) reader = { config, log, database: io.database };
    else {
      const { databaseOptionsFor, openForReading } = await import('../db/client.ts');
      reader = { config, log, database: await openForReading(databaseOptionsFor(config, log)) };
    }
    await body(reader, printerFor(io));
  } catch (err) {
    io.setExitCode(fail(err, io, log));
  } finally {
    if (reader && !io.database) await reader.database.close();
  }
}

export async function withCore(program: Command, body: (core: Core, print: Print) => Promise<void>): Promise<void> {
  const io = ioOf(program);
  let core: Core | undefined;
  let log: Logger | undefined;
  try {
    const config = await configFrom(program);
    // A command a running daemon answers is logged there: the logger is loaded only to run here.
    if (await ranInDaemon(program, io, config)) return;
    log = await cliLogger(config, io);
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
