// The simulation processor: the engine's Processor (src/processors/types.ts) in front of the
// simulated issuers. It answers from the issuer model at the time the engine's ManualClock
// says, honours idempotency keys like a real processor (a repeated key gets its first answer,
// marked replayed), and keeps the log of every attempt it received per card: that log, not the
// engine's own records, is what the network-rule checker judges.
import type { Clock } from '../../../src/clock.ts';
import type { AuthorizeRequest, Processor, ProcessorResponse, RefundRequest } from '../../../src/processors/types.ts';
import { answer, type AttemptLog, type IssuerCtx } from './issuer.ts';
import type { Payer } from './payers.ts';

export interface SimulationProcessor extends Processor {
  /** Every attempt received per payer (index), oldest first. */
  logs(): ReadonlyMap<number, readonly AttemptLog[]>;
}

export const cardTokenOf = (payer: Pick<Payer, 'index'>) => `tok_sim_${payer.index}`;

export function createSimulationProcessor(ctx: IssuerCtx, payers: readonly Payer[], clock: Clock): SimulationProcessor {
  const byToken = new Map(payers.map((p) => [cardTokenOf(p), p]));
  const logs = new Map<number, AttemptLog[]>();
  const answered = new Map<string, ProcessorResponse>();

  async function authorize(request: AuthorizeRequest): Promise<ProcessorResponse> {
    const seen = answered.get(request.idempotencyKey);
    if (seen) return { ...seen, replayed: true };
    const payer = byToken.get(request.cardToken);
    if (!payer) throw new Error(`the simulation has no card ${request.cardToken}`);
    // The engine must charge what the merchant asked for, as a merchant-initiated rebill.
    if (request.amount !== payer.amount || !request.isMIT) throw new Error(`unexpected charge on payer ${payer.index}: ${request.amount} (isMIT ${request.isMIT})`);
    const log = logs.get(payer.index) ?? [];
    const atMs = clock.now().getTime();
    const a = answer(ctx, payer, atMs, log);
    log.push({ atMs, ...a });
    logs.set(payer.index, log);
    const response: ProcessorResponse = {
      approved: a.approved, responseCode: a.code, processorRef: `sim_${request.idempotencyKey}`, replayed: false,
      ...(a.advice ? { adviceCode: a.advice } : {}),
    };
    answered.set(request.idempotencyKey, response);
    return response;
  }

  const settled = (request: Pick<RefundRequest, 'idempotencyKey'>): Promise<ProcessorResponse> =>
    Promise.resolve({ approved: true, responseCode: '00', processorRef: `sim_${request.idempotencyKey}`, replayed: false });

  return { name: 'simulation', authorize, refund: settled, void: settled, logs: () => logs };
}
