// `rescued purge [--dry-run] [--json]`: the retention purge now (docs/operations.md,
// "Retention"), the same run as the daemon's hourly sweep and under the same lock; with
// --dry-run, what it would remove now and the cut-off of each class, removing nothing.
import type { Command } from 'commander';
import { RescuedError } from '../errors.ts';
import { ioOf, withCore } from './context.ts';

interface PurgeOpts {
  dryRun?: boolean;
  json?: boolean;
}

export function purgeCommand(program: Command): void {
  program
    .command('purge')
    .description('remove the data past its retention period (config retention): orders, webhooks, transmits, batches, unneeded cards, archived, outbound and quarantined files; --dry-run says what would go')
    .option('--dry-run', 'count what would be removed now, per class, with each cut-off date; remove nothing')
    .option('--json', 'print JSON')
    .action((opts: PurgeOpts) =>
      withCore(program, async (core, print) => {
        const [{ purgeAndRecord }, { purgeDeps }, { systemClock }, { purgeText }] = await Promise.all([
          import('../retention/record.ts'), import('../retention/stage.ts'), import('../clock.ts'), import('../retention/render.ts'),
        ]);
        const clock = ioOf(program).clock ?? systemClock;
        const report = await purgeAndRecord(purgeDeps(core, clock), core.log.child({ component: 'retention' }), { dryRun: opts.dryRun === true });
        if (!report) throw new RescuedError('ERR_PURGE_BUSY');
        if (opts.json) print(report, true);
        else print(purgeText(report));
      }),
    );
}
