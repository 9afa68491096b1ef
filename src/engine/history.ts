// The planner's histories, read from the attempts table and the card's orders (recorder.ts
// replanHistories, for a group of orders in one statement each): each order's attempts, and
// every authorization on the card at this merchant across all its orders in the networks'
// 30-day window: rescued's attempts, each order's original decline and the merchant's own
// earlier tries (docs/engine.md, "What the card's windows count").
import type { AttemptRow } from '../db/queries/attempts.ts';
import type { CardOrderRow } from '../db/queries/card-histories.ts';
import { decodePriorAttempts } from '../db/prior-attempts.ts';
import { classifyDecline } from '../declines/classify.ts';
import type { AttemptRecord } from './plan-types.ts';
import { DAY_MS } from '../calendar.ts';

/** The longest window any network rule looks back over. */
export const CARD_WINDOW_MS = 30 * DAY_MS;

/**
 * Rescued's attempts a customer was present for: evaluate's real-time try of a CIT and a
 * completed challenge (src/orders/). Every other attempt is the engine's, merchant-initiated.
 */
const CIT_PLAN_REASONS: ReadonlySet<string> = new Set(['cit_realtime', 'challenge_completed']);

export function toRecord(a: Pick<AttemptRow, 'startedAt' | 'responseCode' | 'adviceCode' | 'status' | 'planReason'>): AttemptRecord {
  // An attempt still in flight counts as made (the issuer may have seen it) and not approved.
  return {
    at: a.startedAt, responseCode: a.responseCode, adviceCode: a.adviceCode, approved: a.status === 'approved', origin: 'rescued',
    initiator: CIT_PLAN_REASONS.has(a.planReason ?? '') ? 'CIT' : 'MIT',
  };
}

/**
 * An order's original decline and the merchant's earlier tries as records, none later than
 * the order's arrival; the earliest is the order's first authorization (not a reattempt for
 * Visa). A payment the merchant transmitted gives its earlier tries and its approval. Their codes are the merchant's gateway's: the ISO code behind each is looked up, so a
 * gateway's own code is never read as an ISO one.
 */
export function declineRecords(o: CardOrderRow): AttemptRecord[] {
  const arrived = o.createdAt.getTime();
  const clamp = (d: Date) => (d.getTime() > arrived ? o.createdAt : d);
  const iso = new Map<string, string | null>();
  const isoOf = (code: string, at: Date) => {
    if (!iso.has(code)) iso.set(code, classifyDecline({ responseCodeSource: o.declineSource, responseCode: code, cardBrand: o.cardBrand, at }).networkCode ?? null);
    return iso.get(code)!;
  };
  const record = (at: Date, code: string, adviceCode: string | null, origin: 'original' | 'prior'): AttemptRecord => {
    const networkCode = isoOf(code, at);
    return { at: clamp(at), responseCode: networkCode, networkCode, adviceCode, approved: false, origin, initiator: o.kind };
  };
  const last = o.transmitted
    ? { at: o.declinedAt ?? o.createdAt, responseCode: '00', networkCode: '00', adviceCode: null, approved: true, origin: 'transmitted' as const, initiator: o.kind }
    : record(o.declinedAt ?? o.createdAt, o.declineCode, o.declineAdvice, 'original');
  const list = [...decodePriorAttempts(o.priorAttempts).map((p) => record(p.at, p.responseCode, p.adviceCode, 'prior')), last];
  let first = list[0]!;
  for (const r of list) if (r.at.getTime() < first.at.getTime()) first = r;
  first.initial = true;
  return list;
}

const cardKey = (x: { merchantId: string; cardToken: string }) => `${x.merchantId}\u0000${x.cardToken}`;

/** The decline records of the card orders, by (merchant, card). */
export function declinesByCard(orders: readonly CardOrderRow[]): Map<string, AttemptRecord[]> {
  const out = new Map<string, AttemptRecord[]>();
  for (const o of orders) {
    const key = cardKey(o);
    out.set(key, [...(out.get(key) ?? []), ...declineRecords(o)]);
  }
  return out;
}

/** The card's decline records of `declines` (declinesByCard) at or after `sinceMs`. */
export function cardDeclines(declines: Map<string, AttemptRecord[]>, card: { merchantId: string; cardToken: string }, sinceMs: number): AttemptRecord[] {
  return (declines.get(cardKey(card)) ?? []).filter((r) => r.at.getTime() >= sinceMs);
}

export interface Histories {
  attempts: AttemptRecord[];
  cardAttempts: AttemptRecord[];
}
