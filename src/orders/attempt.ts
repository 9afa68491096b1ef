// A real-time attempt (a CIT soft decline, a completed challenge): one processor call, read
// into a status and an attempt row. MIT attempts belong to the engine.
//
// A customer-initiated call gets no second chance to be reconciled later: the customer is
// waiting. So where the chosen account cannot dedupe keys (Braintree, Authorize.Net, NMI),
// the charge made under this attempt's key is looked up first; a client that retries after
// a timeout (same idempotencyKey, so the same attempt key) then gets the charge it already
// made, never a second one. Idempotent accounts answer a repeated key with its first answer.
import type { AuthorizeRequest, ProcessorResponse } from '../processors/types.ts';
import { answerClassification } from '../declines/answer-decline.ts';
import { attemptsTotal } from '../metrics.ts';
import type { NewApiAttempt } from '../db/queries/insert-api-order.ts';
import { callProcessor, processorOf, type OrderDeps } from './deps.ts';

export type CitStatus = 'APPROVED' | 'DECLINED' | 'CHALLENGE';

export interface RealtimeAttempt {
  status: CitStatus;
  reason: string | null;
  challenge: '3ds' | 'cvv' | undefined;
  confirmationId: string | null;
  row: NewApiAttempt;
}

async function charge(deps: OrderDeps, req: AuthorizeRequest): Promise<ProcessorResponse & { routeTaken?: string }> {
  const processor = processorOf(deps);
  if (!processor.route) return processor.authorize(req);
  const { accountId, route } = await processor.route(req);
  const pinned = { ...req, accountId };
  if (accountId && processor.lookup && (await processor.reconcileBy?.(accountId, req.merchantId)) === 'lookup') {
    const found = await processor.lookup({ idempotencyKey: req.idempotencyKey, reference: req.reference, merchantId: req.merchantId, accountId });
    if (found) return { ...found, routeTaken: route };
  }
  return { ...(await processor.authorize(pinned)), routeTaken: route };
}

export async function attemptNow(deps: OrderDeps, req: AuthorizeRequest, attemptNo: number, planReason: string, cardBrand?: string | null): Promise<RealtimeAttempt> {
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  const res = await callProcessor(() => charge(deps, req));
  const a = attemptOf(deps, req, res, { attemptNo, planReason, cardBrand, startedAt, latencyMs: Math.round(performance.now() - t0) });
  attemptsTotal.inc({ outcome: res.approved ? 'approved' : 'declined' });
  return a;
}

export interface AttemptFacts {
  attemptNo: number;
  planReason: string;
  cardBrand?: string | null | undefined;
  startedAt: Date;
  latencyMs: number;
}

/** The processor's answer read into a status and an attempt row (the caller counts it once it is stored). */
export function attemptOf(deps: Pick<OrderDeps, 'clock'>, req: AuthorizeRequest, res: ProcessorResponse & { routeTaken?: string }, f: AttemptFacts): RealtimeAttempt {
  const status: CitStatus = res.approved ? 'APPROVED' : res.challenge ? 'CHALLENGE' : 'DECLINED';
  const cls = res.approved ? undefined : answerClassification(res, 'iso8583', { cardBrand: f.cardBrand ?? null, at: f.startedAt });
  const reason = res.approved ? null : res.reason ?? cls?.reason ?? null;
  return {
    status,
    reason,
    challenge: res.challenge,
    confirmationId: res.approved ? res.processorRef : null,
    row: {
      attemptNo: f.attemptNo,
      idempotencyKey: req.idempotencyKey,
      status: res.approved ? 'approved' : 'declined',
      responseCode: res.responseCode,
      adviceCode: res.adviceCode ?? null,
      declineClass: cls?.class ?? null,
      reason,
      processorRef: res.processorRef,
      latencyMs: f.latencyMs,
      planReason: f.planReason,
      startedAt: f.startedAt,
      finishedAt: deps.clock.now(),
      accountId: res.accountId ?? null,
      route: res.routeTaken ?? res.route ?? null,
      rawCode: res.rawCode ?? null,
      rawMessage: res.rawMessage ?? null,
      networkTransactionId: res.networkTransactionId ?? null,
    },
  };
}
