#!/usr/bin/env node
// The `rescued` command line: serve, migrate, merchant …, vault rotate, webhooks …
import { Command } from 'commander';
import { createLogger } from './log.ts';
import { configFrom, fail, withCore, print } from './cli/context.ts';
import { merchantCommands } from './cli/merchant.ts';
import { vaultCommands } from './cli/vault.ts';
import { orderCommands } from './cli/orders.ts';
import { webhookCommands } from './cli/webhooks.ts';

const program = new Command('rescued')
  .description('declined-transaction rescue daemon')
  .option('-c, --config <file>', 'configuration file (JSON); also RESCUED_CONFIG')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the daemon: storage, then the HTTP side-port; SIGTERM drains, a second SIGTERM forces')
  .action(async () => {
    let code: number;
    let log;
    try {
      const config = configFrom(program);
      log = createLogger({ level: config.log.level });
      const { serve } = await import('./daemon.ts');
      code = await serve(config, log);
    } catch (err) {
      code = fail(err, log);
    }
    process.exitCode = code;
    log?.flush();
    // Exit by itself once the log destination has drained; if a stage left a handle open
    // (a forced stop), this timer ends the process instead.
    setTimeout(() => process.exit(code), 250).unref();
  });

program
  .command('migrate')
  .description('apply the committed database migrations and exit')
  .action(() => withCore(program, async () => print('migrations applied')));

merchantCommands(program);
vaultCommands(program);
orderCommands(program);
webhookCommands(program);

await program.parseAsync();
