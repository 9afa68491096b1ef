// The results file outbound/<name>.results.json (DESIGN.md §2): once every accepted order of a
// batch is final, one record per entry in sequenceNumber order, and a summary. Records are
// streamed a page at a time to a temporary file — a batch of a million orders never sits in
// memory — and the file appears under its final name only by rename. Never a card number.
import { mkdir } from 'node:fs/promises';
import type { DbOrTx as Tx } from '../db/client.ts';
import { batchResultPage, type ResultRow } from '../db/queries/batch-results.ts';
import { AtomicFile } from '../atomic-file.ts';
import { maskIdentifier } from '../card-numbers.ts';
import { scrubText } from '../scrub.ts';
import { awaitingOf, cardUpdatesOf } from '../domain/card-updates.ts';


export const resultsName = (file: string) => `${file}.results.json`;

export interface ResultsBatch {
  id: string;
  fileName: string;
  receivedAt: Date;
}

export interface ResultsSummary {
  path: string;
  records: number;
  counts: Record<string, number>;
}

const PAGE = 1000;

// Identifiers pass the one detector's identifier rule, text its scrub: an orderId holding a
// card number never became an order, but a file is no place to rely on that alone.
function record(r: ResultRow) {
  return {
    sequenceNumber: r.sequenceNumber,
    orderId: maskIdentifier(r.orderId),
    orderSessionKey: r.orderSessionKey,
    status: r.status,
    reason: r.reason === null ? null : scrubText(r.reason),
    attempts: r.attempts,
    finishedAt: r.finishedAt?.toISOString() ?? null,
    confirmationId: maskIdentifier(r.confirmationId),
    // What recovered an approved order; the decline that made it wait for an updated card and
    // the cards attached since (BIN and last four at most), when any.
    ...(r.status === 'APPROVED' ? { recoveredBy: r.recoveredBy ?? 'retry' } : {}),
    ...cardFacts(r),
    ...(r.gateway ? { gateway: { ...r.gateway, rawMessage: r.gateway.rawMessage === null ? null : scrubText(r.gateway.rawMessage), networkTransactionId: maskIdentifier(r.gateway.networkTransactionId) } } : {}),
  };
}

function cardFacts(r: ResultRow) {
  const waited = awaitingOf(r.awaitingCard);
  const updates = cardUpdatesOf(r.cardUpdates);
  return {
    ...(waited ? { awaitedUpdatedCard: { since: waited.since, decline: waited.decline } } : {}),
    ...(updates.length ? { cardUpdates: updates.map((u) => ({ at: u.at, source: u.source, kind: u.kind, last4: u.last4 ?? null, expMonth: u.expMonth ?? null, expYear: u.expYear ?? null })) } : {}),
  };
}

export async function writeResultsFile(db: Tx, outboundDir: string, batch: ResultsBatch, now: Date): Promise<ResultsSummary> {
  await mkdir(outboundDir, { recursive: true, mode: 0o750 });
  const out = new AtomicFile(outboundDir, resultsName(batch.fileName));
  const counts: Record<string, number> = {};
  let records = 0;
  try {
    await out.write('{"results":[');
    for (let after = -1; ; ) {
      const page = await batchResultPage(db, batch.id, after, PAGE);
      for (const r of page) {
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        await out.write(`${records++ ? ',' : ''}\n${JSON.stringify(record(r))}`);
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.sequenceNumber ?? after;
    }
    const summary = { file: batch.fileName, batchId: batch.id, receivedAt: batch.receivedAt.toISOString(), writtenAt: now.toISOString(), total: records, counts };
    await out.end(`${records ? '\n' : ''}],${JSON.stringify(summary).slice(1)}\n`);
    await out.publish();
  } catch (err) {
    await out.discard();
    throw err;
  }
  return { path: out.path, records, counts };
}
