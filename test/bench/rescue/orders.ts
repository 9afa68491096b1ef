// The declined orders a merchant hands over, per seed: each card's orders, their original
// declines (with the issuer's Mastercard advice on them) and the merchant's own retries before
// the hand-over, answered by the same issuer model (bank.ts). An order the merchant's own retry
// recovered is not handed over. This history is drawn once per seed, the same for every
// strategy; every strategy's attempts come after it.
import { declineOf, answer, type CardEvent } from './bank.ts';
import { DAY_MS, HOUR_MS } from './calendar.ts';
import { drawCard, type Card } from './cards.ts';
import { logNormal, uniform } from './random.ts';
import type { World } from './world.ts';

export interface Order {
  /** Index within the seed. */
  index: number;
  card: Card;
  amount: number;
  declineAtMs: number;
  originalCode: string;
  /** The original decline's Mastercard advice, as the merchant's gateway returned it. */
  originalAdvice?: string;
  /** The merchant's retries before the hand-over (all declined), oldest first. */
  prior: CardEvent[];
  /** When the merchant hands the order over (after its own retries). */
  handoverAtMs: number;
  /** expiryDateUtc: the order's deadline. */
  expiryMs: number;
}

export interface Population {
  world: World;
  orders: Order[];
  /** Per card: its originals and the merchant's retries, every order's, oldest first. */
  history: Map<Card, CardEvent[]>;
}

/** `count` handed-over orders of the world (the cards' other orders recovered by the merchant are left out). */
export function drawPopulation(world: World, count: number): Population {
  const orders: Order[] = [];
  const history = new Map<Card, CardEvent[]>();
  let drawn = 0;
  for (let c = 0; orders.length < count; c++) {
    const card = drawCard(world, c);
    const { handed, events } = merchantHistory(world, card, drawn);
    drawn += card.declinesAtMs.length;
    // The last card's orders past `count` are never handed over: they never happened here.
    const kept = handed.slice(0, count - orders.length);
    const dropped = new Set(handed.slice(kept.length).map((o) => o.index));
    history.set(card, events.filter((e) => !dropped.has(e.order)));
    orders.push(...kept);
  }
  return { world, orders, history };
}

interface Charge {
  atMs: number;
  k: number;
  retry?: number;
}

/** The card's original declines and the merchant's retries, in time order, answered by the issuer. */
function merchantHistory(world: World, card: Card, firstIndex: number): { handed: Order[]; events: CardEvent[] } {
  const u = (...key: (string | number)[]) => uniform(world.seed, 'card', card.index, 'merchant', ...key);
  const amounts = card.declinesAtMs.map((_, k) => (k === 0 || u('same-amount', k) < 0.5 ? card.priceCents : Math.max(100, Math.round(logNormal(world.price.medianCents, world.price.sigma, u('amount-1', k), u('amount-2', k))))));
  const charges: Charge[] = [];
  card.declinesAtMs.forEach((atMs, k) => {
    charges.push({ atMs, k });
    const retries = u('prior', k) < world.prior.share ? 1 + Math.floor(u('prior-n', k) * world.prior.max) : 0;
    let t = atMs;
    for (let r = 0; r < retries; r++) charges.push({ atMs: (t += world.prior.spacingHours * HOUR_MS * (0.5 + u('spacing', k, r))), k, retry: r });
  });
  charges.sort((a, b) => a.atMs - b.atMs);
  const events: CardEvent[] = [];
  const recovered = new Set<number>();
  const originals = new Map<number, CardEvent>();
  for (const ch of charges) {
    if (recovered.has(ch.k)) continue;
    const order = firstIndex + ch.k;
    if (ch.retry === undefined) {
      const a = declineOf(world, card, ch.atMs, events);
      // The issuer adds its advice to an original decline only sometimes; a few say "do not try again" (03) at once.
      const advice = card.brand !== 'mastercard' ? undefined : a.advice === '03' || a.advice === '21' || a.advice === '01' ? a.advice
        : u('original-03', ch.k) < world.advice.original03 ? '03' : u('original-advice', ch.k) < world.advice.onOriginal ? a.advice : undefined;
      const e: CardEvent = { atMs: ch.atMs, approved: false, code: a.code, ...(advice ? { advice } : {}), amount: amounts[ch.k]!, order, by: 'original' };
      events.push(e);
      originals.set(ch.k, e);
      continue;
    }
    // A merchant that got "do not try again" does not retry (its own gateway honours the advice).
    if (events.some((e) => e.advice === '03' || e.advice === '21') || isHard(events.findLast((e) => e.order === order)!.code)) continue;
    const a = answer(world, card, order, amounts[ch.k]!, ch.atMs, events);
    events.push({ atMs: ch.atMs, ...a, amount: amounts[ch.k]!, order, by: 'merchant' });
    if (a.approved) recovered.add(ch.k);
  }
  const handed = [...originals.entries()].filter(([k]) => !recovered.has(k)).map(([k, original]): Order => {
    const prior = events.filter((e) => e.order === original.order && e.by === 'merchant');
    const lastMs = prior.at(-1)?.atMs ?? original.atMs;
    return {
      index: original.order, card, amount: original.amount, declineAtMs: original.atMs, originalCode: original.code,
      ...(original.advice ? { originalAdvice: original.advice } : {}), prior,
      handoverAtMs: lastMs + (1 + Math.floor(u('handover', k) * 60)) * 60_000, expiryMs: original.atMs + world.windowDays * DAY_MS,
    };
  });
  return { handed, events };
}

// The merchant's own gateway does not retry what is plainly final (a dead or closed card).
const isHard = (code: string) => ['14', '41', '43', '46', '54', 'R0', 'R1', 'R3'].includes(code);
