// The planner's hook: a retry the static model planned, moved to the learned best slot the
// rules allow, with the evidence as its reason. Temporary issuer trouble keeps its short
// backoff: its chance depends on the issuer coming back, not on the payer's clock.
import type { SoftKind } from '../../declines/reasons.ts';
import type { Plan, PlanInput } from '../plan-types.ts';
import { learnedSlot, type SlotWindow } from './estimate.ts';

export function withLearning(planned: Plan, input: PlanInput, kind: SoftKind, w: Omit<SlotWindow, 'staticMs'>): Plan {
  if (planned.action !== 'retry' || !input.learned || kind === 'temporary') return planned;
  const slot = learnedSlot({ ...w, staticMs: planned.at.getTime() }, planned.reason, input.learned);
  return { ...planned, at: new Date(slot.atMs), evidence: slot.evidence };
}
