// `rescued orders show <orderSessionKey>`: an order as the engine sees it — status, the past
// attempts with their results and why each was made then, and the planned next attempt with
// its reason. `orders list` and `orders find <orderId>` find orders by what the operator
// knows (merchant, status, batch, time; the merchant's own orderId). Cards appear as brand
// and last four digits only.
// The commands only: what each does is in src/cli/order-actions.ts, loaded when it runs here,
// so that a command a running daemon answers loads no database query (issue 28).
import { Option, type Command } from 'commander';
import type { ListOptions } from './order-actions.ts';
import { ioOf, withCore, withReader } from './context.ts';
import { cliProgress } from './progress.ts';

const actions = () => import('./order-actions.ts');

export function orderCommands(program: Command): void {
  const orders = program.command('orders').description('inspect, list and find orders');
  orders
    .command('show <orderSessionKey>')
    .description('an order with its past attempts and the planned next one, and the reason for each (no card number)')
    .option('--json', 'print JSON')
    .action((key: string, opts: { json?: boolean }) =>
      withReader(program, async (core, print) => (await actions()).showOrder(core, print, key, opts)),
    );

  orders
    .command('reconcile <orderSessionKey>')
    .description('send a parked order (outcome still unknown after processor.reconcileTimeoutMs) back to be reconciled: its key replayed or looked up, never charged anew')
    .action((key: string) => withCore(program, async (core, print) => (await actions()).reconcileOrder(core, print, key)));
  orders
    .command('list')
    .description('orders newest first (a batch\'s in sequenceNumber order), one line each; no card number')
    .option('--merchant <mid>', 'only this merchant\'s')
    .option('--status <status>', 'only orders in this status (SUBMITTED, PENDING, PROCESSING, APPROVED, DECLINED, CHALLENGE, EXPIRED, CANCELLED)')
    .option('--batch <id|file name>', 'only this batch\'s orders (a file name: the latest batch of that name)')
    .option('--since <time>', 'created at or after this time (ISO 8601) or for this long (90m, 24h, 7d)')
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--json', 'print JSON')
    .action((opts: ListOptions) =>
      withReader(program, async (core, print) =>
        (await actions()).printOrderList(core, print, opts, (total) => cliProgress(ioOf(program), 'orders list', { total, unit: 'orders' })),
      ),
    );

  orders
    .command('find [orderId]')
    .description('the order with this orderId (the merchant\'s own): of one merchant (an orderId is unique per merchant), or of each merchant that has one')
    // The flag of earlier releases, kept so that scripts written for them still run.
    .addOption(new Option('--order-id <orderId>').hideHelp())
    .option('--merchant <mid>', 'only this merchant\'s')
    .option('--json', 'print JSON')
    .action((orderId: string | undefined, opts: { orderId?: string; merchant?: string; json?: boolean }) =>
      withReader(program, async (core, print) => (await actions()).findOrders(core, print, { ...opts, orderId: orderId ?? opts.orderId })),
    );
}
