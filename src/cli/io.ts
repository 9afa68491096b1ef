// Where a CLI command reads its environment and writes its output. `rescued` itself runs on
// the process's own; tests (and anything else that runs commands in-process) hand in theirs,
// so a command's behaviour is the same function either way.
import type { Database } from '../db/client.ts';

export interface CliIo {
  /** Read for configuration (RESCUED_*, DATABASE_URL); undefined: the process's own. */
  env?: NodeJS.ProcessEnv;
  /** A command's output. */
  out(text: string): void;
  /** Errors, and log lines at warn and above. */
  err(text: string): void;
  /** Standard input, read whole (processor credentials); undefined: the process's own. */
  stdin?: () => Promise<string>;
  /** The command's exit status: 0, 1, or 78 for a configuration error. */
  setExitCode(code: number): void;
  /**
   * An open, migrated database to run commands on instead of opening the configured one;
   * the command leaves it open. Undefined: each command opens and closes its own.
   */
  database?: Database;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

/** Prints a command's result: text as it is, anything else (or with --json) as JSON. */
export type Print = (value: unknown, json?: boolean) => void;

export function printerFor(io: CliIo): Print {
  return (value, json = false) => io.out(`${json || typeof value !== 'string' ? JSON.stringify(value, null, 2) : value}\n`);
}
