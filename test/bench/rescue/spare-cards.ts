// The cards a payer has besides the declined one, for the bench's --card-updates variants:
// - the successor of a card that must change (replaced during the window, expired, lost or
//   stolen, closed, an invalid number): the payer's new card on the same account, usable from
//   when the old one changed. The gateway's account updater knows it when the issuer is enrolled
//   (world.updates.updaterShare) and the card was reissued (a new expiry for an expired card, a
//   new number for a replaced, lost or stolen one; nothing for a closed account or a wrong
//   number). A share of payers give it to the merchant when asked, after a delay.
// - the payer's second stored card (world.updates.otherCardShare), with its own issuer state:
//   in good standing, or a card drawn like any declined card of the world.
// Like world.ts and cards.ts, this imports nothing from src/ (the import-graph test checks it).
import { HOUR_MS } from './calendar.ts';
import { drawCard, type Behaviour, type Card } from './cards.ts';
import { logNormal, uniform } from './random.ts';
import type { World } from './world.ts';

/** Card indexes of the spares: apart from the world's own cards (and their draws). */
const SUCCESSOR_INDEX = 1_000_000;
const OTHER_INDEX = 2_000_000;

export interface Successor {
  card: Card;
  /** The payer holds it from then on. */
  fromMs: number;
  /** What the gateway's account updater reports on a decline of the old card; undefined: it knows nothing. */
  updater: 'expiry' | 'replacement' | undefined;
  /** Hours after order.card_update_needed the merchant sends it; undefined: the payer never gives it. */
  merchantAfterMs: number | undefined;
}

export interface Spares {
  successor?: Successor;
  other?: Card;
}

const MUST_CHANGE = new Set(['expired', 'lost_or_stolen', 'closed', 'invalid_number']);
const REISSUED = new Set(['expired', 'lost_or_stolen']);

/** A card in good standing, or (otherwise) the issuer state a fresh declined card of the world would have. */
function standing(world: World, index: number, healthy: boolean): Behaviour {
  return healthy ? { kind: 'approve' } : drawCard(world, index).behaviour;
}

export function spareCards(world: World, card: Card): Spares {
  const u = (...key: (string | number)[]) => uniform(world.seed, 'spare', card.index, ...key);
  const w = world.updates;
  const out: Spares = {};
  const replaced = card.replacedAtMs !== Infinity;
  if (replaced || MUST_CHANGE.has(card.reason)) {
    // Same account: a replaced card keeps its issuer state; a card dead from the start (expired,
    // lost, closed, invalid) says nothing about the account behind it, so that is drawn.
    const index = card.index + SUCCESSOR_INDEX;
    const behaviour = card.behaviour.kind !== 'never' ? card.behaviour : standing(world, index, u('successor-ok') < w.otherCardHealthy);
    const successor: Card = { ...card, index, behaviour, replacedAtMs: Infinity, outageUntilMs: -Infinity };
    const known = u('updater') < w.updaterShare && (replaced || REISSUED.has(card.reason));
    out.successor = {
      card: successor, fromMs: replaced ? card.replacedAtMs : card.declinesAtMs[0]!,
      updater: known ? (!replaced && card.reason === 'expired' ? 'expiry' : 'replacement') : undefined,
      merchantAfterMs: u('merchant') < w.merchantShare ? Math.max(0.25, logNormal(w.merchantDelayMedianHours, 1, u('delay-1'), u('delay-2'))) * HOUR_MS : undefined,
    };
  }
  if (u('other') < w.otherCardShare) {
    const index = card.index + OTHER_INDEX;
    const drawn = drawCard(world, index);
    out.other = { ...drawn, behaviour: standing(world, index, u('other-ok') < w.otherCardHealthy), replacedAtMs: Infinity, outageUntilMs: -Infinity };
  }
  return out;
}
