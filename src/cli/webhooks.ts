// `rescued webhooks …`: the operator's view of deliveries, replays (a new delivery of the same
// event, same webhook-id, `IsResent: true`), and re-enabling an endpoint after a 410.
import { Option, type Command } from 'commander';
import { createWebhookOperations } from '../webhooks/operations.ts';
import type { DeliveryListing } from '../db/queries/list-webhook-deliveries.ts';
import { ioOf, withCore } from './context.ts';
import { cliProgress } from './progress.ts';

function line(d: DeliveryListing): string {
  const last = d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? '-');
  const next = d.status === 'pending' ? ` next ${d.endpointEnabled ? (d.nextAttemptAt?.toISOString() ?? '-') : 'when enabled'}` : '';
  return `${d.deliveryId}  ${d.webhookId}  ${d.event.padEnd(15)}  ${d.status.padEnd(10)}  attempts ${d.attempts}  last ${last}${next}${d.isResent ? '  (resent)' : ''}  ${d.mid}`;
}

/** `--mid`, the merchant flag of earlier releases: still read, no longer shown (every command says --merchant). */
const midAlias = () => new Option('--mid <mid>').hideHelp();

export function webhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('inspect, replay and re-enable webhook deliveries');

  webhooks
    .command('list')
    .description('list the latest webhook deliveries, newest first')
    .option('--failed', 'only dead deliveries and those whose last attempt failed')
    .option('--merchant <mid>', 'only this merchant\'s')
    .addOption(midAlias())
    .option('--limit <n>', 'at most this many (default 50)', (v) => Number.parseInt(v, 10))
    .option('--json', 'print JSON')
    .action((opts: { failed?: boolean; merchant?: string; mid?: string; limit?: number; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const rows = await createWebhookOperations(core.database.db).list({ ...opts, mid: opts.merchant ?? opts.mid });
        print(opts.json ? rows : rows.map(line).join('\n') || '(no deliveries)', opts.json);
      }),
    );

  webhooks
    .command('replay [deliveryOrWebhookId]')
    .description('deliver an event again (same webhook-id, IsResent: true): by delivery id or webhook-id (msg_…), or every event since a time')
    .option('--since <time>', 'every event since this time (ISO 8601) or for this long (90m, 24h, 7d)')
    .option('--merchant <mid>', 'with --since: only this merchant\'s events')
    .addOption(midAlias())
    .option('--failed', 'with --since: only events whose deliveries are all dead')
    .option('--json', 'print JSON')
    .action((id: string | undefined, { merchant, ...rest }: { since?: string; merchant?: string; mid?: string; failed?: boolean; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const opts = { ...rest, mid: merchant ?? rest.mid };
        // Replaying by time goes a chunk of events at a time: the line shows how many of how
        // many (on a terminal only; piped, nothing).
        const progress = opts.since && !id ? cliProgress(ioOf(program), `webhooks replay --since ${opts.since}`, { unit: 'events' }) : undefined;
        const res = await createWebhookOperations(core.database.db)
          .replay({ id, ...opts }, progress && ((done, total) => progress.update(done, total)))
          .finally(() => progress?.finish());
        print(opts.json ? res : [`replayed ${res.replayed.length} of ${res.events} event(s)`, ...res.replayed.map((r) => `${r.deliveryId}  ${r.webhookId}`)].join('\n'), opts.json);
      }),
    );

  webhooks
    .command('enable <endpointOrMid>')
    .description('re-enable a webhook endpoint (by its id or the merchant\'s mid) disabled by a 410; its waiting deliveries go out')
    .action((ref: string) =>
      withCore(program, async (core, print) => {
        const r = await createWebhookOperations(core.database.db).enable(ref);
        print(`webhook endpoint ${r.endpointId} of ${r.mid} enabled (${r.url ?? 'no URL set'}); ${r.waiting} deliveries waiting`);
      }),
    );
}
