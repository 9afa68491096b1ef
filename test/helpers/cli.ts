// Runs `rescued` commands in-process: the same command tree as src/main.ts, with output,
// exit status and environment captured. A test about a command's behaviour uses this; the
// spawned `cli()` of helpers/daemon.ts stays for the real entry point.
import { CommanderError } from 'commander';
import { buildProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/admin/io.ts';
import type { Database } from '../../src/db/client.ts';
import type { Clock } from '../../src/clock.ts';
import { cleanEnv } from './daemon.ts';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * `rescued …args` with `env` as its environment (the test process's RESCUED_* removed).
 * With `database`, the command runs on that open database and leaves it open, as it would
 * on its own connection to the same data. With `stdin`, that is the command's standard input.
 * With `clock`, the command counts time from it (a ManualClock moved by the test).
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv, database?: Database, stdin?: string, clock?: Clock): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  let status = 0;
  const io: CliIo = {
    env: cleanEnv(env),
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    setExitCode: (code) => void (status = code),
    database,
    clock,
    ...(stdin !== undefined ? { stdin: async () => stdin } : {}),
  };
  try {
    await buildProgram(io).parseAsync(args, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    status = err.exitCode;
  }
  return { status, stdout, stderr };
}
