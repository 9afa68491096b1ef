// The command groups of `rescued`, one line each, in the order `rescued --help` lists them
// after serve and migrate: each line loads its module and names the function that adds its
// commands to the program. docs/development.md, "Adding a CLI command".
import type { Command } from 'commander';

export const COMMANDS: readonly ((program: Command) => void)[] = [
  (await import('./merchant.ts')).merchantCommands,
  (await import('./vault.ts')).vaultCommands,
  (await import('./orders.ts')).orderCommands,
  (await import('./batches.ts')).batchCommands,
  (await import('./webhooks.ts')).webhookCommands,
  (await import('./processor.ts')).processorCommands,
  (await import('./report.ts')).reportCommand,
];
