// The simulation processor for the random worlds: the engine's Processor
// (src/processors/types.ts) in front of the simulated issuers (bank.ts). It answers at the time
// the engine's ManualClock says, from each card's whole history at the merchant (the seed's
// originals and merchant retries, and every attempt the engine made on any order of the card),
// honours idempotency keys like a real processor, and keeps every attempt it received: that
// log, not the engine's own records, is what the network-rule checker judges.
import type { Clock } from '../../../src/clock.ts';
import type { AuthorizeRequest, Processor, ProcessorResponse, RefundRequest } from '../../../src/processors/types.ts';
import { answer, type CardEvent } from './bank.ts';
import type { Attempts } from './baselines.ts';
import type { Card } from './cards.ts';
import type { Order, Population } from './orders.ts';

export interface WorldProcessor extends Processor {
  /** The attempts received per population (in the order given) and order index. */
  attempts(): Attempts[];
  sent(): number;
}

/** `idOf(pop, order)`: the orderSessionKey the engine stores the order under. */
export function createWorldProcessor(pops: readonly Population[], idOf: (pop: Population, order: Order) => string, clock: Clock): WorldProcessor {
  const byId = new Map<string, { pop: Population; at: number; order: Order }>();
  const cards = new Map<Card, CardEvent[]>();
  const attempts = pops.map((pop, at) => {
    for (const order of pop.orders) byId.set(idOf(pop, order), { pop, at, order });
    for (const [card, events] of pop.history) cards.set(card, [...events]);
    return new Map(pop.orders.map((o) => [o.index, [] as CardEvent[]])) as Attempts;
  });
  const answered = new Map<string, ProcessorResponse>();
  let sent = 0;

  async function authorize(request: AuthorizeRequest): Promise<ProcessorResponse> {
    const seen = answered.get(request.idempotencyKey);
    if (seen) return { ...seen, replayed: true };
    const found = byId.get(request.reference);
    if (!found) throw new Error(`the simulation has no order ${request.reference}`);
    const { pop, at, order } = found;
    // The engine must charge what the merchant asked for, as a merchant-initiated rebill, on the order's card.
    if (request.amount !== order.amount || !request.isMIT || request.cardToken !== cardTokenOf(pop, order)) throw new Error(`unexpected charge on order ${order.index} of seed ${pop.world.seed}`);
    const atMs = clock.now().getTime();
    const events = cards.get(order.card)!;
    const a = answer(pop.world, order.card, order.index, order.amount, atMs, events);
    const e: CardEvent = { atMs, ...a, amount: order.amount, order: order.index, by: 'strategy' };
    events.push(e);
    attempts[at]!.get(order.index)!.push(e);
    sent++;
    const response: ProcessorResponse = { approved: a.approved, responseCode: a.code, processorRef: `sim_${request.idempotencyKey}`, replayed: false, ...(a.advice ? { adviceCode: a.advice } : {}) };
    answered.set(request.idempotencyKey, response);
    return response;
  }

  const settled = (request: Pick<RefundRequest, 'idempotencyKey'>): Promise<ProcessorResponse> =>
    Promise.resolve({ approved: true, responseCode: '00', processorRef: `sim_${request.idempotencyKey}`, replayed: false });

  return { name: 'simulation', authorize, refund: settled, void: settled, attempts: () => attempts, sent: () => sent };
}

export const cardTokenOf = (pop: Population, order: Order) => `tok_sim_${pop.world.seed}_${order.card.index}`;
