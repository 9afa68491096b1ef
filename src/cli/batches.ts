// `rescued batches list|show`: the batch files a merchant sent, as intake decided them (the
// ack's counts), the files they produced, what became of their orders, and the progress of a
// file still being ingested. The same figures as GET /v1/batches[/{id}] (src/orders/batch-view.ts).
import type { Command } from 'commander';
import { RescuedError } from '../errors.ts';
import { batchDetail, batchPage, type BatchDetail, type BatchPage, type BatchSummary } from '../orders/batch-view.ts';
import type { Core } from '../core.ts';
import { progressBoard } from '../intake/progress-board.ts';
import { withCore } from './context.ts';

const money = (amount: number, currency: string) => `${(amount / 100).toFixed(2)} ${currency}`;

export function batchLine(b: BatchSummary): string {
  if (b.progress) {
    return `${b.batchId}  ${b.fileName}  ingesting ${b.progress.percent}% (${b.progress.decided} of ${b.entries} entries)  started ${b.receivedAt}  ${b.mid}`;
  }
  if (b.error) return `${b.batchId}  ${b.fileName}  rejected whole: ${b.error.code}  received ${b.receivedAt}  ${b.bytes ?? '?'} bytes  ${b.mid}`;
  const results = b.resultsFile ? 'results written' : 'orders open';
  return `${b.batchId}  ${b.fileName}  ${b.status}  entries ${b.entries}  accepted ${b.accepted}  rejected ${b.rejected}  received ${b.receivedAt}  ${results}  ${b.mid}`;
}

export function batchText(b: BatchDetail): string {
  const lines = [`batch ${b.batchId}  ${b.fileName}  of merchant ${b.mid}`];
  if (b.progress) {
    lines.push(
      `  status:    being ingested since ${b.receivedAt}`,
      `  progress:  ${b.progress.decided} of ${b.entries} entries (${b.progress.percent}%): accepted ${b.accepted}, rejected ${b.rejected} · updated ${b.progress.updatedAt}`,
      '  orders:    visible when the file is committed',
    );
    return lines.join('\n');
  }
  if (b.error) {
    lines.push(
      `  status:    rejected whole, nothing kept · received ${b.receivedAt} · ${b.bytes ?? '?'} bytes`,
      `  reason:    ${b.error.code}: ${b.error.message}`,
      `  ack:       outbound/${b.ackFile}`,
    );
    return lines.join('\n');
  }
  lines.push(
    `  status:    ${b.status} · received ${b.receivedAt} · finished ${b.finishedAt ?? '-'}`,
    `  entries:   ${b.entries}: accepted ${b.accepted}, rejected ${b.rejected}`,
  );
  if (b.orders) lines.push(`  orders:    pending ${b.orders.pending} · approved ${b.orders.approved} · expired ${b.orders.expired} · cancelled ${b.orders.cancelled}`);
  lines.push(
    `  recovered: ${b.recovered.map((r) => money(r.amount, r.currency)).join(', ') || 'nothing yet'}`,
    `  ack:       outbound/${b.ackFile}`,
    `  results:   ${b.resultsFile ? `outbound/${b.resultsFile}` : 'when every order is final'}`,
  );
  return lines.join('\n');
}

/** What the listing says of the stored batches while an ingest holds PGlite's connection. */
export function heldNote(held: BatchPage['held']): string[] {
  if (!held) return [];
  if (held.asOf) return [`(the embedded database is busy ingesting the file above: the other batches are as of ${held.asOf})`];
  return ['(the embedded database is busy ingesting the file above: the other batches are listed once it is committed)'];
}

/**
 * The merchant's id by mid. Through the progress board: while an ingest holds PGlite's
 * connection the mid asked for before is known without a statement (a merchant cannot be
 * added or changed until the file commits).
 */
async function merchantIdOf(core: Core, mid: string | undefined): Promise<string | undefined> {
  if (!mid) return undefined;
  const known = await progressBoard(core.database.db).read(`merchant ${mid.toLowerCase()}`, async () => (await core.merchants.byMid(mid)).id);
  return known ? known.value : (await core.merchants.byMid(mid)).id;
}

export function batchCommands(program: Command): void {
  const batches = program.command('batches').description('batch files: their counts, orders and results, and the progress of one being ingested');

  batches
    .command('list')
    .description('batches newest first, the files being ingested now at the top')
    .option('--merchant <mid>', 'only this merchant\'s')
    .option('--limit <n>', 'at most this many (default 50, at most 500)')
    .option('--json', 'print JSON')
    .action((opts: { merchant?: string; limit?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const limit = opts.limit === undefined ? 50 : Number(opts.limit);
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500) throw new RescuedError('ERR_MODEL_INVALID', '--limit must be a whole number from 1 to 500.');
        const merchantId = await merchantIdOf(core, opts.merchant);
        const page = await batchPage(core.database.db, merchantId, limit, undefined);
        if (opts.json) return print(page.batches, true);
        const more = page.nextCursor && page.held?.asOf !== null ? ['(more batches: raise --limit)'] : [];
        const tail = [...heldNote(page.held), ...more];
        print([...page.batches.map(batchLine), ...tail].join('\n') || '(no batches)');
      }),
    );

  batches
    .command('show <idOrFileName>')
    .description('one batch by id or file name (the latest of that name): entries, accepted, rejected, its orders by state, the recovered amount, its ack and results files; or the progress of a file being ingested')
    .option('--merchant <mid>', 'only this merchant\'s batches (a file name may be used by several merchants)')
    .option('--json', 'print JSON')
    .action((ref: string, opts: { merchant?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const merchantId = await merchantIdOf(core, opts.merchant);
        const batch = await batchDetail(core.database.db, ref, merchantId);
        if (!batch) throw new RescuedError('ERR_HTTP_NOT_FOUND', `No batch ${ref}${opts.merchant ? ` of merchant ${opts.merchant}` : ''}.`);
        print(opts.json ? batch : batchText(batch), opts.json);
      }),
    );
}
