// One attempt of one claimed order: its attempt row was committed by the claim (claim.ts),
// so the processor is called with `<orderSessionKey>:<attemptNo>`, and the answer goes to the
// recorder, which writes it with the other answers that arrived together (recorder.ts). A
// crash anywhere leaves either no attempt row (nothing was sent) or an in-flight one whose key
// the retry reuses, so the processor's stored answer is used and nothing is charged twice.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { markVoided } from '../db/queries/attempts.ts';
import type { Claimed } from '../db/queries/claim-attempts.ts';
import { lockOrder } from '../db/queries/claim-orders.ts';
import { moveOrder } from '../db/queries/move-order.ts';
import { assertTransition } from '../domain/states.ts';
import type { Logger } from '../log.ts';
import { attemptsTotal } from '../metrics.ts';
import type { Processor, ProcessorResponse } from '../processors/types.ts';
import type { Answered, Recorded } from './recorder.ts';

export interface WorkerCtx {
  db: Db;
  processor: Processor;
  clock: Clock;
  log: Logger;
  /** Runs a processor call in the processor's queue (its concurrency and rate). */
  atProcessor: <T>(call: () => Promise<T>) => Promise<T>;
  /** Records an answer (grouped with the others that arrive together). */
  record: (a: Answered) => Promise<Recorded>;
  /** Testing only: a pause between the processor's answer and its recording. */
  pauseAfterAnswerMs: number;
  /** After a processor failure (no answer), the order is looked at again this much later. */
  errorRetryMs: number;
}

export type AttemptOutcome = 'approved' | 'declined' | 'voided' | 'error' | 'skipped';

interface RequestView {
  transaction?: { timezoneUtcOffset?: number | null };
}

/** Runs the attempt of a claimed (PROCESSING) order; 'skipped' when its answer was not recorded here. */
export async function runAttempt(ctx: WorkerCtx, claimed: Claimed): Promise<AttemptOutcome> {
  const { order, attempt } = claimed;
  const log = ctx.log.child({ orderSessionKey: order.id });
  const started = performance.now();
  let answer: ProcessorResponse;
  try {
    answer = await ctx.atProcessor(() => ctx.processor.authorize({
      idempotencyKey: attempt.idempotencyKey, reference: order.id, merchantId: order.merchantId, cardToken: order.cardToken,
      amount: attempt.amount, currency: attempt.currency, isMIT: true, timezoneUtcOffset: (order.request as RequestView | null)?.transaction?.timezoneUtcOffset ?? null,
    }));
  } catch (err) {
    log.warn({ err, attemptNo: attempt.attemptNo }, 'processor call failed; the attempt is retried with the same idempotency key');
    await release(ctx, order.id);
    attemptsTotal.inc({ outcome: 'error' });
    return 'error';
  }
  const latencyMs = Math.round(performance.now() - started);
  if (ctx.pauseAfterAnswerMs > 0) {
    log.info({ attemptNo: attempt.attemptNo, pauseMs: ctx.pauseAfterAnswerMs }, 'processor answered; pausing before recording (engine.pauseAfterAnswerMs)');
    await sleep(ctx.pauseAfterAnswerMs);
  }
  const recorded = await ctx.record({ order, attempt, answer, latencyMs });
  const outcome: AttemptOutcome = recorded === 'void' ? await voidApproval(ctx, claimed, answer) : recorded;
  if (outcome !== 'skipped') attemptsTotal.inc({ outcome });
  log.debug({ attemptNo: attempt.attemptNo, outcome, responseCode: answer.responseCode, replayed: answer.replayed, latencyMs }, 'attempt finished');
  return outcome;
}

/** No answer: back to the queue a little later, the in-flight attempt kept for its key. */
async function release(ctx: WorkerCtx, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const cur = await lockOrder(tx, id);
    if (cur?.status !== 'PROCESSING') return;
    assertTransition('PROCESSING', 'PENDING');
    await moveOrder(tx, id, { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + ctx.errorRetryMs) }, now);
  });
}

/**
 * Voids an approval recorded on an order that was cancelled meanwhile. A crash before this
 * leaves the attempt 'approved' with reason to_be_voided on a final order: the void sweep
 * (sweeps.ts) sends it again, and the void's key is fixed, so that is safe.
 */
export async function voidApproval(ctx: Pick<WorkerCtx, 'db' | 'processor' | 'atProcessor'>, claimed: Pick<Claimed, 'order' | 'attempt'>, answer: Pick<ProcessorResponse, 'processorRef'>): Promise<AttemptOutcome> {
  const { order, attempt } = claimed;
  const voided = await ctx.atProcessor(() => ctx.processor.void({ idempotencyKey: `${attempt.idempotencyKey}:void`, reference: order.id, processorRef: answer.processorRef, currency: attempt.currency }));
  await markVoided(ctx.db, attempt.id, voided.approved ? 'voided_after_cancel' : 'void_refused', voided.approved);
  return 'voided';
}
