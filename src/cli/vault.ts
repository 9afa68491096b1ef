// `rescued vault rotate`: after a new vault key is added to vault.keys and made active,
// re-encrypts every card and webhook secret still under an older key. Safe to run again
// (and to interrupt): it only touches values not yet under the active key.
import { InvalidArgumentError, type Command } from 'commander';
import { RescuedError } from '../errors.ts';
import { withCore } from './context.ts';

function batchSize(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('a whole number from 1 to 10000');
  return n;
}

export function vaultCommands(program: Command): void {
  const vault = program.command('vault').description('manage the card vault');

  vault
    .command('rotate')
    .description('re-encrypt every card, webhook secret and processor credential not yet under vault.activeKeyId, in batches; prints counts; idempotent')
    .option('--batch-size <n>', 'rows per transaction', batchSize, 500)
    .option('--json', 'print JSON')
    .action((opts: { batchSize: number; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const { rotateVault } = await import('../vault/rotate.ts');
        const report = await rotateVault(core.database.db, core.keyRing, {
          batchSize: opts.batchSize,
          onBatch: (what, c) => core.log.debug({ component: 'cli', what, ...c }, 'vault rotate: batch done'),
        });
        const { cards, webhookSecrets, processorCredentials } = report;
        print(
          opts.json
            ? report
            : [
                `active key: ${report.activeKeyId}`,
                `cards re-encrypted: ${cards.rotated}, failed: ${cards.failed}`,
                `webhook endpoints re-encrypted: ${webhookSecrets.rotated}, failed: ${webhookSecrets.failed}`,
                `processor accounts re-encrypted: ${processorCredentials.rotated}, failed: ${processorCredentials.failed}`,
              ].join('\n'),
          opts.json,
        );
        const failed = cards.failed + webhookSecrets.failed + processorCredentials.failed;
        if (failed > 0) {
          throw new RescuedError('ERR_VAULT_ROTATE_INCOMPLETE', `${failed} sealed values could not be opened with the configured keys; keep the old keys listed and check the log.`);
        }
      }),
    );
}
