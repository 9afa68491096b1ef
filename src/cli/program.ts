// The `rescued` command tree: serve, migrate, merchant …, vault rotate, orders …, webhooks …,
// processor ….
// Built around a CliIo so that `src/main.ts` runs it on the process and tests run the same
// commands in-process.
import { Command } from 'commander';
import type { ResolvedConfig } from '../config/index.ts';
import type { Logger } from '../log.ts';
import { bindIo, configFrom, fail, withCore } from './context.ts';
import type { CliIo, CommandRunner } from '../admin/io.ts';
import { COMMANDS } from './commands.ts';
import { commandRunner } from './run.ts';
import { addLazyGroups } from './lazy.ts';

/**
 * Runs the daemon until it stops, with its exit code: src/daemon.ts's `serve`, which src/main.ts
 * hands in (the daemon wires the stages a floor above the CLI, .config/layers.mjs). Absent in
 * the trees the daemon and the tests build to run other commands.
 */
export type Serve = (config: ResolvedConfig, log: Logger, opts: { runCommand: CommandRunner }) => Promise<number>;

export function buildProgram(io: CliIo, serve?: Serve): Command {
  const program = new Command('rescued')
    .description('declined-transaction rescue daemon')
    .option('-c, --config <file>', 'configuration file (JSON); also RESCUED_CONFIG')
    .showHelpAfterError();
  // Before any subcommand is added: commander copies the output settings to each one.
  bindIo(program, io);

  program
    .command('serve')
    .description('run the daemon: storage, then the HTTP side-port; SIGTERM drains, a second SIGTERM forces')
    .action(async () => {
      let code: number;
      let log;
      try {
        const config = await configFrom(program);
        const [{ createLogger }, { resolveLogFormat }] = await Promise.all([import('../log.ts'), import('../log-format.ts')]);
        log = createLogger({ level: config.log.level, format: resolveLogFormat(config.log.format, process.stdout.isTTY === true) });
        if (!serve) throw new Error('serve is run by src/main.ts, not from this command tree');
        // The daemon runs the commands sent to its CLI socket with this very command tree.
        code = await serve(config, log, { runCommand: commandRunner(buildProgram) });
      } catch (err) {
        code = fail(err, io, log);
      }
      io.setExitCode(code);
      log?.flush();
      // Exit by itself once the log destination has drained; if a stage left a handle open
      // (a forced stop), this timer ends the process instead.
      setTimeout(() => process.exit(code), 250).unref();
    });

  program
    .command('migrate')
    .description('apply the committed database migrations and exit')
    .action(() => withCore(program, async (_core, print) => print('migrations applied')));

  addLazyGroups(program, COMMANDS);
  return program;
}
