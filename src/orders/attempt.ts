// A real-time attempt (a CIT soft decline, a completed challenge): one processor call, read
// into a status and an attempt row. MIT attempts belong to the engine.
import type { AuthorizeRequest, ProcessorResponse } from '../processors/types.ts';
import { classifyDecline } from '../engine/classify.ts';
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

export async function attemptNow(deps: OrderDeps, req: AuthorizeRequest, attemptNo: number, planReason: string): Promise<RealtimeAttempt> {
  const processor = processorOf(deps);
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  const res: ProcessorResponse = await callProcessor(() => processor.authorize(req));
  const latencyMs = Math.round(performance.now() - t0);
  const status: CitStatus = res.approved ? 'APPROVED' : res.challenge ? 'CHALLENGE' : 'DECLINED';
  const cls = res.approved ? undefined : classifyDecline({ responseCodeSource: 'iso8583', responseCode: res.responseCode, merchantAdviceCode: res.adviceCode ?? null });
  const reason = res.approved ? null : res.reason ?? cls?.reason ?? null;
  attemptsTotal.inc({ outcome: res.approved ? 'approved' : 'declined' });
  return {
    status,
    reason,
    challenge: res.challenge,
    confirmationId: res.approved ? res.processorRef : null,
    row: {
      attemptNo,
      idempotencyKey: req.idempotencyKey,
      status: res.approved ? 'approved' : 'declined',
      responseCode: res.responseCode,
      adviceCode: res.adviceCode ?? null,
      declineClass: cls?.class ?? null,
      reason,
      processorRef: res.processorRef,
      latencyMs,
      planReason,
      startedAt,
      finishedAt: deps.clock.now(),
    },
  };
}
