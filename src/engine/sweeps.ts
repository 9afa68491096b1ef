// The periodic sweeps (DESIGN.md §3): expire orders at their deadline, reclaim lost leases,
// finish batches whose orders are all final, prune old idempotency records. Each runs in one
// transaction behind pg_try_advisory_xact_lock, so with several replicas one runs it and the
// others skip that round.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { findFinishedBatches, markResultsWritten } from '../db/queries/batch-results.ts';
import { pruneProcessorCalls } from '../db/queries/processor-calls.ts';
import { pruneLearnedTiming } from '../db/queries/learned-timing.ts';
import { markVoided } from '../db/queries/attempts.ts';
import { expireOrders, pruneIdempotencyRecords, reclaimLeases, tryAdvisoryXactLock, unvoidedApprovals } from '../db/queries/sweeps.ts';
import { assertTransition, type Status } from '../domain/states.ts';
import type { Logger } from '../log.ts';
import type { Processor } from '../processors/types.ts';
import { writeResultsFile } from '../outbound/results.ts';
import { enqueueOrderEvent } from '../webhooks/outbox.ts';
import { DAY_MS } from '../calendar.ts';

// Advisory lock keys, one per sweep ("rsw" + a number, so they do not meet the migration lock).
const LOCKS = { expire: 0x72737701n, reclaim: 0x72737702n, batches: 0x72737703n, prune: 0x72737704n } as const;
const STEP = 1000;
const EXPIRABLE: Status[] = ['SUBMITTED', 'PENDING', 'CHALLENGE'];
for (const s of EXPIRABLE) assertTransition(s, 'EXPIRED'); // the bulk statement makes these moves

export interface SweepCtx {
  db: Db;
  clock: Clock;
  log: Logger;
  testMode: boolean;
  processorCallRetentionDays: number;
  /** The outbound folder of a merchant's SFTP user; undefined: results files are not written here. */
  outboundFor?: ((username: string) => string) | undefined;
  /** For voids a crash left unsent; undefined: not swept here. */
  processor?: Processor | undefined;
}

export interface SweepReport {
  expired: number;
  reclaimed: number;
  batchesFinished: number;
  pruned: number;
  /** Approvals on cancelled orders voided by the sweep (their void was lost in a crash). */
  voided: number;
}

async function locked<T>(ctx: SweepCtx, key: bigint, empty: T, body: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => ((await tryAdvisoryXactLock(tx, key)) ? body(tx) : empty));
}

export async function expireDue(ctx: SweepCtx): Promise<number> {
  let total = 0;
  for (;;) {
    const now = ctx.clock.now();
    const n = await locked(ctx, LOCKS.expire, 0, async (tx) => {
      const rows = await expireOrders(tx, now, STEP);
      for (const o of rows) {
        await enqueueOrderEvent(tx, {
          type: 'order.expired', merchantId: o.merchantId, orderSessionKey: o.id, orderId: o.orderId, status: 'EXPIRED', reason: o.statusReason,
          amount: o.amount, currency: o.currency, attempts: o.attemptCount, isTestMode: ctx.testMode, at: now,
        });
      }
      return rows.length;
    });
    total += n;
    if (n < STEP) return total;
  }
}

export async function reclaimLost(ctx: SweepCtx): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await locked(ctx, LOCKS.reclaim, 0, (tx) => reclaimLeases(tx, ctx.clock.now(), STEP));
    total += n;
    if (n < STEP) return total;
  }
}

/** Writes the results file of every batch whose orders are all final, and marks it written. */
export async function finishBatches(ctx: SweepCtx): Promise<number> {
  const outboundFor = ctx.outboundFor;
  if (!outboundFor) return 0;
  return locked(ctx, LOCKS.batches, 0, async (tx) => {
    let done = 0;
    for (const b of await findFinishedBatches(tx, 50)) {
      if (!b.username) {
        ctx.log.warn({ batchId: b.id }, 'batch of a merchant without an SFTP user: no results file');
        continue;
      }
      const now = ctx.clock.now();
      const written = await writeResultsFile(tx, outboundFor(b.username), b, now);
      await markResultsWritten(tx, b.id, now);
      ctx.log.info({ batchId: b.id, merchantId: b.merchantId, file: b.fileName, records: written.records, counts: written.counts }, 'results file written');
      done++;
    }
    return done;
  });
}

/** Expired idempotency records and old sandbox answers, STEP of each per transaction. */
export async function prune(ctx: SweepCtx): Promise<number> {
  let total = 0;
  for (;;) {
    const [records, calls, cells] = await locked(ctx, LOCKS.prune, [0, 0, 0], async (tx) => {
      const now = ctx.clock.now();
      return [
        await pruneIdempotencyRecords(tx, now, STEP),
        await pruneProcessorCalls(tx, new Date(now.getTime() - ctx.processorCallRetentionDays * DAY_MS), STEP),
        // Bounded by the learned tables' own size (docs/engine.md "Learned timing").
        await pruneLearnedTiming(tx, now),
      ];
    });
    total += records + calls + cells;
    if (records < STEP && calls < STEP) return total;
  }
}

/**
 * Voids again the approvals a crash left recorded as to_be_voided. The void's key is fixed
 * (`<attempt key>:void`), so a void the processor did get is answered from its memory, and
 * two replicas sending the same one charge nothing twice: no lock is needed, and no
 * transaction waits on the processor.
 */
export async function resendVoids(ctx: SweepCtx): Promise<number> {
  const processor = ctx.processor;
  if (!processor) return 0;
  let done = 0;
  for (const a of await unvoidedApprovals(ctx.db, 100)) {
    try {
      const voided = await processor.void({ idempotencyKey: `${a.idempotencyKey}:void`, reference: a.orderSessionKey, processorRef: a.processorRef, currency: a.currency, accountId: a.accountId });
      await markVoided(ctx.db, a.id, voided.approved ? 'voided_after_cancel' : 'void_refused', voided.approved);
      ctx.log.info({ orderSessionKey: a.orderSessionKey, voided: voided.approved, replayed: voided.replayed }, 'approval on a cancelled order voided by the sweep');
      done++;
    } catch (err) {
      ctx.log.warn({ err, orderSessionKey: a.orderSessionKey }, 'void failed; the next sweep tries again');
    }
  }
  return done;
}

/**
 * Every sweep once, in an order where each feeds the next: leases back, deadlines, batches.
 * Pruning scans processor_calls by age and the void sweep scans attempts (no index serves
 * either), so they run only when asked, which the engine does at start and then hourly.
 */
export async function sweepOnce(ctx: SweepCtx, opts: { prune: boolean } = { prune: true }): Promise<SweepReport> {
  const reclaimed = await reclaimLost(ctx);
  const expired = await expireDue(ctx);
  const batchesFinished = await finishBatches(ctx);
  const pruned = opts.prune ? await prune(ctx) : 0;
  const voided = opts.prune ? await resendVoids(ctx) : 0;
  return { expired, reclaimed, batchesFinished, pruned, voided };
}
