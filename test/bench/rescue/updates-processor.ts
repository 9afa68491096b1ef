// The simulation processor of the --card-updates variants: world-processor.ts's issuer answers,
// for every card a payer holds (the declined card, its successor, a second stored card), each
// with its own history at the merchant; one copy of every card per variant, so the variants,
// run side by side as separate merchants, never meet each other's attempts. Where the variant
// has the gateway's account updater, a card-must-change decline of a card whose issuer is
// enrolled carries the successor as `cardUpdate` (as Stripe's automatic card updates and
// Adyen's real-time account updater do), and a charge naming that stored card
// (credential.gatewayReference) charges the successor.
import type { Clock } from '../../../src/clock.ts';
import type { AuthorizeRequest, Processor, ProcessorResponse, RefundRequest } from '../../../src/processors/types.ts';
import { answer, type CardEvent } from './bank.ts';
import type { Card } from './cards.ts';
import type { Order, Population } from './orders.ts';
import type { Spares } from './spare-cards.ts';

export const VARIANTS = ['off', 'updater', 'merchant', 'cascade', 'all'] as const;
export type Variant = (typeof VARIANTS)[number];
export const VARIANT_LABELS: Record<Variant, string> = {
  off: '(a) updates and cascade off',
  updater: '(b) gateway account updater',
  merchant: '(c) merchant updates',
  cascade: '(d) payer\'s other card',
  all: '(e) all three',
};
export const SETTINGS: Record<Variant, { updater: boolean; merchant: boolean; cascade: boolean }> = {
  off: { updater: false, merchant: false, cascade: false },
  updater: { updater: true, merchant: false, cascade: false },
  merchant: { updater: false, merchant: true, cascade: false },
  cascade: { updater: false, merchant: false, cascade: true },
  all: { updater: true, merchant: true, cascade: true },
};

/** One seed's population under one variant: one merchant. */
export interface VariantRun {
  variant: Variant;
  pop: Population;
  spares: Map<Card, Spares>;
}

/** A card as one variant's payer holds it, with everything the networks saw on it at the merchant. */
export interface HeldCard {
  variant: Variant;
  card: Card;
  /** The declined card it belongs to (itself, or the one it succeeds or stands beside). */
  of: Card;
  role: 'original' | 'successor' | 'other';
  events: CardEvent[];
}

const tag = (r: VariantRun) => `${r.variant}_${r.pop.world.seed}`;
export const tokenOf = (r: VariantRun, card: Card, role: HeldCard['role']) => `tok_${role}_${tag(r)}_${card.index}`;
const gatewayRefOf = (r: VariantRun, card: Card) => `au_${tag(r)}_${card.index}`;
/** A last four for a simulated card (never a real number). */
export const last4Of = (card: Card) => String(card.index % 10_000).padStart(4, '0');

// What the simulated issuers answer when the card itself is gone (cards.ts): the updater's cue.
const CARD_GONE = new Set(['14', '41', '43', '54']);

export interface UpdatesProcessor extends Processor {
  /** Per order id: the attempts it made, on whichever card. */
  attempts(): Map<string, CardEvent[]>;
  /** Per variant and card role: attempts, approvals, and the account updater's answers. */
  tally(): Map<Variant, Record<HeldCard['role'], { attempts: number; approved: number }> & { updates: number }>;
  /** Every card of every run, with its events (originals and the merchant's retries included). */
  held(): HeldCard[];
  sent(): number;
}

export function createUpdatesProcessor(runs: readonly VariantRun[], idOf: (r: VariantRun, o: Order) => string, clock: Clock): UpdatesProcessor {
  const byId = new Map<string, { run: VariantRun; order: Order }>();
  const cards = new Map<string, HeldCard>();
  const perOrder = new Map<string, CardEvent[]>();
  for (const run of runs) {
    for (const order of run.pop.orders) {
      byId.set(idOf(run, order), { run, order });
      perOrder.set(idOf(run, order), []);
    }
    for (const [card, events] of run.pop.history) {
      cards.set(tokenOf(run, card, 'original'), { variant: run.variant, card, of: card, role: 'original', events: [...events] });
      const spares = run.spares.get(card)!;
      if (spares.successor) {
        const held: HeldCard = { variant: run.variant, card: spares.successor.card, of: card, role: 'successor', events: [] };
        cards.set(tokenOf(run, card, 'successor'), held);
        cards.set(gatewayRefOf(run, card), held);
      }
      if (spares.other) cards.set(tokenOf(run, card, 'other'), { variant: run.variant, card: spares.other, of: card, role: 'other', events: [] });
    }
  }
  const answered = new Map<string, ProcessorResponse>();
  let sent = 0;
  const zero = () => ({ original: { attempts: 0, approved: 0 }, successor: { attempts: 0, approved: 0 }, other: { attempts: 0, approved: 0 }, updates: 0 });
  const tally = new Map(runs.map((r) => [r.variant, zero()]));

  function cardUpdateOf(run: VariantRun, held: HeldCard, a: { approved: boolean; code: string }, atMs: number): ProcessorResponse['cardUpdate'] {
    const s = run.spares.get(held.of)?.successor;
    if (!SETTINGS[run.variant].updater || held.role !== 'original' || a.approved || !CARD_GONE.has(a.code) || !s?.updater || atMs < s.fromMs) return undefined;
    return { kind: s.updater, gatewayReference: gatewayRefOf(run, held.of), last4: last4Of(s.card), expMonth: 12, expYear: 2030 };
  }

  async function authorize(request: AuthorizeRequest): Promise<ProcessorResponse> {
    const seen = answered.get(request.idempotencyKey);
    if (seen) return { ...seen, replayed: true };
    const found = byId.get(request.reference);
    if (!found) throw new Error(`the simulation has no order ${request.reference}`);
    const { run, order } = found;
    const key = request.credential?.kind === 'gateway' ? request.credential.gatewayReference ?? '' : request.cardToken;
    const held = cards.get(key);
    // The engine must charge what the merchant asked for, as a merchant-initiated rebill, on one of the payer's cards.
    if (!held || held.of !== order.card || request.amount !== order.amount || !request.isMIT) throw new Error(`unexpected charge on order ${order.index} of seed ${run.pop.world.seed} (${run.variant})`);
    const atMs = clock.now().getTime();
    const a = answer(run.pop.world, held.card, order.index, order.amount, atMs, held.events);
    const e: CardEvent = { atMs, ...a, amount: order.amount, order: order.index, by: 'strategy' };
    held.events.push(e);
    perOrder.get(request.reference)!.push(e);
    sent++;
    const update = cardUpdateOf(run, held, a, atMs);
    const t = tally.get(run.variant)!;
    t[held.role].attempts++;
    if (a.approved) t[held.role].approved++;
    if (update) t.updates++;
    const response: ProcessorResponse = {
      approved: a.approved, responseCode: a.code, processorRef: `sim_${request.idempotencyKey}`, replayed: false,
      ...(a.advice ? { adviceCode: a.advice } : {}), ...(update ? { cardUpdate: update } : {}),
    };
    answered.set(request.idempotencyKey, response);
    return response;
  }

  const settled = (request: Pick<RefundRequest, 'idempotencyKey'>): Promise<ProcessorResponse> =>
    Promise.resolve({ approved: true, responseCode: '00', processorRef: `sim_${request.idempotencyKey}`, replayed: false });

  return { name: 'simulation', authorize, refund: settled, void: settled, attempts: () => perOrder, tally: () => tally, held: () => [...new Set(cards.values())], sent: () => sent };
}
