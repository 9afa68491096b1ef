// The attempts of many cards (and orders) in ONE statement, for the caps check of a whole
// claim and the re-planning of a whole group of declines. The keys travel as one JSON
// parameter (json_to_recordset), which both drivers bind the same way whatever the count;
// each key is one probe of attempts_card_idx. Read one card at a time, the histories were
// two statements per attempt.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import type { AttemptRow } from './attempts.ts';
import { selectRows } from './claim-orders.ts';
import { dateOf, uuidList } from './raw-rows.ts';


export interface CardKey {
  merchantId: string;
  cardToken: string;
}

const dateOrNull = (v: unknown): Date | null => (v == null ? null : dateOf(v));
const intOrNull = (v: unknown): number | null => (v == null ? null : Number(v));

function toAttempt(r: Record<string, unknown>): AttemptRow {
  return {
    id: r.id as string, orderSessionKey: r.order_session_key as string, merchantId: r.merchant_id as string, cardToken: r.card_token as string,
    attemptNo: Number(r.attempt_no), idempotencyKey: r.idempotency_key as string, status: r.status as AttemptRow['status'],
    amount: Number(r.amount), currency: r.currency as string, responseCode: (r.response_code as string | null) ?? null,
    adviceCode: (r.advice_code as string | null) ?? null, declineClass: (r.decline_class as string | null) ?? null, reason: (r.reason as string | null) ?? null,
    processorRef: (r.processor_ref as string | null) ?? null, latencyMs: intOrNull(r.latency_ms), planReason: (r.plan_reason as string | null) ?? null,
    startedAt: dateOf(r.started_at), finishedAt: dateOrNull(r.finished_at),
    accountId: (r.account_id as string | null) ?? null, route: (r.route as string | null) ?? null, rawCode: (r.raw_code as string | null) ?? null,
    rawMessage: (r.raw_message as string | null) ?? null, networkTransactionId: (r.network_transaction_id as string | null) ?? null,
    unknownSince: dateOrNull(r.unknown_since),
  };
}

/** The distinct (merchant, card) keys as one JSON parameter for json_to_recordset (m, t). */
export function cardKeysJson(cards: readonly CardKey[]): string {
  const seen = new Set<string>();
  const keys = cards.filter((c) => !seen.has(`${c.merchantId}\u0000${c.cardToken}`) && seen.add(`${c.merchantId}\u0000${c.cardToken}`));
  return JSON.stringify(keys.map((k) => ({ m: k.merchantId, t: k.cardToken })));
}

/**
 * Every attempt since `since` of each (merchant, card) in `cards`, plus every attempt of the
 * orders in `orderIds` whatever its age (an order's own history can be older than the card
 * window). Oldest first. Each order in `orderIds` must have its card in `cards`: the second
 * half reads only what the first cannot hold (older than `since`), so nothing comes twice.
 */
export async function attemptsOfCards(db: Tx, cards: CardKey[], since: Date, orderIds: string[] = []): Promise<AttemptRow[]> {
  if (cards.length === 0 && orderIds.length === 0) return [];
  const rows = await selectRows(
    db,
    sql`select a.* from json_to_recordset(${cardKeysJson(cards)}::json) as k(m uuid, t text)
      join attempts a on a.merchant_id = k.m and a.card_token = k.t and a.started_at >= ${since.toISOString()}::timestamptz
    union all
    select a.* from attempts a
      where a.order_session_key in ${uuidList(orderIds)} and a.started_at < ${since.toISOString()}::timestamptz
    order by started_at, attempt_no`,
  );
  return rows.map(toAttempt);
}

/** An order of a card, as the card's windows count it: its original decline and the merchant's earlier tries. */
export interface CardOrderRow {
  id: string;
  merchantId: string;
  cardToken: string;
  kind: 'CIT' | 'MIT';
  cardBrand: string | null;
  createdAt: Date;
  /** Null on orders older than the column: created_at stands in. */
  declinedAt: Date | null;
  declineCode: string;
  declineSource: string;
  declineAdvice: string | null;
  /** orders.prior_attempts as stored (src/db/prior-attempts.ts decodes it). */
  priorAttempts: unknown;
  /**
   * A payment the merchant made itself and transmitted (POST /v1/transmit), not an order:
   * approved at `declinedAt` (its transaction's time) after its earlier tries.
   */
  transmitted?: boolean;
}

/**
 * The orders of a card read for its windows at most: the newest, by arrival. Each holds at
 * least its original decline, so this many already fill any window the configuration allows
 * (limits of at most 100); a file of 50,000 orders on one card costs each claim this many
 * rows, not 50,000.
 */
export const MAX_CARD_ORDERS = 200;

const CARD_ORDER_COLUMNS = sql.raw(
  'o.id, o.merchant_id, o.card_token, o.kind, o.card_brand, o.created_at, o.declined_at, o.decline_code, o.decline_source, o.decline_advice, o.prior_attempts, false as transmitted',
);
// A transmitted payment in the same shape: its time stands for arrival and decline alike.
const TRANSMIT_COLUMNS = sql.raw(
  `x.id, x.merchant_id, k.t as card_token, coalesce(x.initiator, 'CIT') as kind, x.card_brand, x.authorized_at as created_at, x.authorized_at as declined_at,
   '00' as decline_code, coalesce(x.decline_source, 'iso8583') as decline_source, null as decline_advice, x.prior_attempts, true as transmitted`,
);

/**
 * The orders of each (merchant, card) in `cards` that came in since `since`, the newest
 * MAX_CARD_ORDERS of each (one backward probe of orders_card_idx per card), the orders in
 * `orderIds` whatever their place, and the payments the merchant transmitted on each card
 * since `since` (by token, or by the fingerprint of the number it sent), in one statement. An order's original decline and earlier
 * tries all happened before it came in, so an order older than `since` has none in the window.
 */
export async function ordersOfCards(db: Tx, cards: CardKey[], since: Date, orderIds: string[] = []): Promise<CardOrderRow[]> {
  if (cards.length === 0) return [];
  const cardKeys = cardKeysJson(cards);
  const rows = await selectRows(
    db,
    sql`select ${CARD_ORDER_COLUMNS}
      from json_to_recordset(${cardKeys}::json) as k(m uuid, t text)
      cross join lateral (
        select * from orders x where x.merchant_id = k.m and x.card_token = k.t and x.created_at >= ${since.toISOString()}::timestamptz
        order by x.created_at desc limit ${MAX_CARD_ORDERS}
      ) o
    union all
    select ${CARD_ORDER_COLUMNS} from orders o where o.id in ${uuidList(orderIds)} and o.created_at >= ${since.toISOString()}::timestamptz
    union all
    select ${TRANSMIT_COLUMNS}
      from json_to_recordset(${cardKeys}::json) as k(m uuid, t text)
      cross join lateral (
        select * from transmits y where y.merchant_id = k.m and y.card_token = k.t and y.authorized_at >= ${since.toISOString()}::timestamptz
        union all
        select y.* from cards c join transmits y on y.merchant_id = c.merchant_id and y.card_fingerprint = c.fingerprint and y.card_token is null
          where c.merchant_id = k.m and c.token = k.t and y.authorized_at >= ${since.toISOString()}::timestamptz
        order by authorized_at desc limit ${MAX_CARD_ORDERS}
      ) x`,
  );
  const byId = new Map<string, CardOrderRow>();
  for (const r of rows) {
    byId.set(r.id as string, {
      id: r.id as string, merchantId: r.merchant_id as string, cardToken: r.card_token as string, kind: r.kind as CardOrderRow['kind'],
      cardBrand: (r.card_brand as string | null) ?? null, createdAt: dateOf(r.created_at), declinedAt: dateOrNull(r.declined_at),
      declineCode: r.decline_code as string, declineSource: r.decline_source as string, declineAdvice: (r.decline_advice as string | null) ?? null,
      priorAttempts: r.prior_attempts ?? null, ...(r.transmitted === true ? { transmitted: true } : {}),
    });
  }
  return [...byId.values()];
}

/** Advisory-lock class of the per-card check (two-key form: apart from the sweeps' bigint keys). */
const CARD_LOCK_CLASS = 0x72737706;

/**
 * Takes, until the transaction ends, one lock per (merchant, card): two claims deciding on one
 * card then decide one after the other, the second reading the first's committed attempt.
 * Taken in hash order, so two claims with overlapping cards never wait on each other in a ring.
 */
export async function lockCards(tx: Tx, cards: CardKey[]): Promise<void> {
  if (cards.length === 0) return;
  await tx.execute(sql`select count(pg_advisory_xact_lock(${CARD_LOCK_CLASS}::int, s.h)) from (
      select distinct hashtext(k.m || ':' || k.t) as h from json_to_recordset(${cardKeysJson(cards)}::json) as k(m text, t text) order by h
    ) s`);
}
