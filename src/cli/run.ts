// Runs a command line in this process on a given CliIo: how the daemon runs the commands sent
// to its CLI socket (src/admin/), with the very command tree of `rescued` itself.
import { CommanderError, type Command } from 'commander';
import { NEVER_FORWARDED } from '../admin/never-forwarded.ts';
import type { CliIo, CommandRunner } from '../admin/io.ts';

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** A CommandRunner over the tree `build` makes; `serve` and `migrate` are refused (they need the folder to themselves). */
export function commandRunner(build: (io: CliIo) => Command): CommandRunner {
  return async (argv, io) => {
    const program = build(io);
    let ran: string | undefined;
    program.hook('preSubcommand', (_root, sub) => {
      if (NEVER_FORWARDED.has(sub.name())) program.error(`rescued: '${sub.name()}' is not run by a running daemon; stop the daemon first`, { exitCode: 1 });
    });
    program.hook('preAction', (_root, action) => {
      ran = commandPath(action);
    });
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (err) {
      // --help, a usage error, a refused command: commander has written the message already.
      if (!(err instanceof CommanderError)) throw err;
      io.setExitCode(err.exitCode);
    }
    return ran;
  };
}
