// Where a CLI command reads its environment and input and writes its output. `rescued` itself
// runs on the process's own; tests, and the daemon running a command sent to it over its
// socket (session.ts), hand in theirs, so a command's behaviour is the same function either way.
// Here, below the CLI (src/cli/), because both ends of the daemon's socket speak it: the
// client forwards a command's I/O, the session runs it (docs/development.md, "Layers").
import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Clock } from '../clock.ts';

export interface CliIo {
  /** Read for configuration (RESCUED_*, DATABASE_URL); undefined: the process's own. */
  env?: NodeJS.ProcessEnv;
  /**
   * A configuration already loaded, used instead of loading one from `--config` and `env`:
   * the daemon runs a forwarded command with the configuration its data is open under.
   */
  config?: ResolvedConfig;
  /** A command's output. */
  out(text: string): void;
  /** Errors, and log lines at warn and above. */
  err(text: string): void;
  /** Standard input, read whole (processor credentials); undefined: the process's own. */
  stdin?: () => Promise<string>;
  /**
   * Reads a file a command names (a public key, a credentials file) as UTF-8; undefined: this
   * process's file system. Forwarded commands read on the client's side, so relative paths and
   * the operator's own permissions are the client's.
   */
  readFile?: (path: string) => Promise<string>;
  /**
   * Whether stderr is an interactive terminal, where progress is drawn (quiet when piped);
   * undefined: the process's own stderr for `processIo`, no terminal for any other.
   */
  terminal?: boolean;
  /** The command's exit status: 0, 1, or 78 for a configuration error. */
  setExitCode(code: number): void;
  /**
   * An open, migrated database to run commands on instead of opening the configured one;
   * the command leaves it open. Undefined: each command opens and closes its own.
   */
  database?: Database;
  /**
   * The time commands count from (the purge's cut-offs); undefined: the system clock. Tests
   * hand in a ManualClock, as the engine's tests do.
   */
  clock?: Clock;
}

/**
 * Runs a command line (the arguments after `rescued`) with the given CliIo, in this process.
 * Resolves with the command that ran ("merchant add-key"), undefined when none did (help,
 * a usage error); the exit status goes to io.setExitCode.
 */
export type CommandRunner = (argv: string[], io: CliIo) => Promise<string | undefined>;

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

async function processStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/** The command's standard input, read whole. */
export function readStdin(io: CliIo): Promise<string> {
  return io.stdin ? io.stdin() : processStdin();
}

/** A file the command names, as UTF-8, read where the operator typed the command. */
export function readText(io: CliIo, path: string): Promise<string> {
  return io.readFile ? io.readFile(path) : readFile(path, 'utf8');
}

export function isTerminal(io: CliIo): boolean {
  return io.terminal ?? (io === processIo && process.stderr.isTTY === true);
}

/** Prints a command's result: text as it is, anything else (or with --json) as JSON. */
export type Print = (value: unknown, json?: boolean) => void;

export function printerFor(io: CliIo): Print {
  return (value, json = false) => io.out(`${json || typeof value !== 'string' ? JSON.stringify(value, null, 2) : value}\n`);
}
