// The command groups of `rescued`, one line each, in the order `rescued --help` lists them
// after serve and migrate: the group's name and description as the top-level help shows them,
// and how to load its module, which is imported only when the group runs (src/cli/lazy.ts).
// The description is the one the module gives (test/unit/cli/help.test.ts checks both agree).
// docs/development.md, "Adding a CLI command".
import type { CommandGroup } from './lazy.ts';

export const COMMANDS: readonly CommandGroup[] = [
  { name: 'merchant', description: 'onboard and manage merchants', load: async () => (await import('./merchant.ts')).merchantCommands },
  { name: 'vault', description: 'manage the card vault', load: async () => (await import('./vault.ts')).vaultCommands },
  { name: 'orders', description: 'inspect, list and find orders', load: async () => (await import('./orders.ts')).orderCommands },
  { name: 'batches', description: 'batch files: their counts, orders and results, and the progress of one being ingested', load: async () => (await import('./batches.ts')).batchCommands },
  { name: 'webhooks', description: 'inspect, replay and re-enable webhook deliveries', load: async () => (await import('./webhooks.ts')).webhookCommands },
  { name: 'processor', description: 'a merchant\'s own gateway accounts, through which its retries are charged', load: async () => (await import('./processor.ts')).processorCommands },
  { name: 'purge', description: 'remove the data past its retention period (config retention): orders, webhooks, transmits, batches, unneeded cards, archived, outbound and quarantined files; --dry-run says what would go', load: async () => (await import('./purge.ts')).purgeCommand },
  { name: 'report', description: 'recovery figures: orders by state, recovered amount and rate (overall, by decline reason, card brand, merchant), attempts per day (done and planned), queue, webhook backlog, batches in progress, learned timing (best and worst local hours per decline)', load: async () => (await import('./report.ts')).reportCommand },
];
