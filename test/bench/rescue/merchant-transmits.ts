// The payments the merchant recovered itself before handing its other orders over: a merchant
// following the interface sends each approved payment to POST /v1/transmit, with the tries
// before it (transaction.priorAttempts), so rescued's card windows count them as the networks
// do. Without them a card's windows missed the merchant's own retries on orders it never
// handed over, and the checker (which counts every authorization) found rescued past Visa's
// 20 reattempts in 30 days on such cards. Stored through the transmit path's own functions
// (validation, the row, the bulk insert with the model's counters), as the route stores them.
import type { Db } from '../../../src/db/client.ts';
import { insertTransmits, type TransmitRow } from '../../../src/db/queries/insert-transmits.ts';
import { validateTransmit } from '../../../src/domain/index.ts';
import { statIncrements, transmitRow } from '../../../src/orders/transmit.ts';
import type { CardEvent } from './bank.ts';
import type { Card } from './cards.ts';
import type { Outside } from './engine-run.ts';
import type { Population } from './orders.ts';
import { cardTokenOf } from './world-processor.ts';

const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

/** The transmit bodies of the population's merchant-recovered orders, in time order. */
export function merchantTransmits(pop: Population, tokenOf: (card: Card) => string = (card) => cardTokenOf(pop, { card } as Parameters<typeof cardTokenOf>[1])): { atMs: number; body: Record<string, unknown> }[] {
  const handed = new Set(pop.orders.map((o) => o.index));
  const out: { atMs: number; body: Record<string, unknown> }[] = [];
  for (const [card, events] of pop.history) {
    const byOrder = new Map<number, CardEvent[]>();
    for (const e of events) if (!handed.has(e.order)) byOrder.set(e.order, [...(byOrder.get(e.order) ?? []), e]);
    for (const [order, list] of byOrder) {
      const approval = list.find((e) => e.approved);
      if (!approval) continue;
      const token = tokenOf(card);
      const before = list.filter((e) => e.atMs < approval.atMs);
      out.push({
        atMs: approval.atMs,
        body: {
          orderId: `OWN-${order}`, isMIT: true, payer: { id: `payer-${card.index}` },
          paymentMethod: { cardNumber: token, token: true, cardBrand: BRAND_NAMES[card.brand] },
          transaction: {
            amount: approval.amount, currency: 'USD', responseCode: '00', responseStatus: 'Approved', responseCodeSource: 'NA', timestampUtc: iso(approval.atMs),
            priorAttempts: before.map((e) => ({ timestampUtc: iso(e.atMs), responseCode: e.code, ...(e.advice ? { merchantAdviceCode: e.advice } : {}) })),
          },
        },
      });
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** A merchant of the run: its population, and the token its orders name each card by. */
export interface TransmittingMerchant {
  pop: Population;
  merchantId: string;
  tokenOf?: (card: Card) => string;
}

/**
 * The merchants' transmits, each stored once the simulated clock has reached its time (the
 * merchant sends it after its approval, not before), before the engine's claim, beside what
 * else happens outside the engine (`also`).
 */
export function transmitFeed(db: Db, merchants: readonly TransmittingMerchant[], also?: Outside): Outside {
  const pending = merchants
    .flatMap(({ pop, merchantId, tokenOf }) => merchantTransmits(pop, tokenOf).map((t) => ({ ...t, merchantId })))
    .sort((a, b) => a.atMs - b.atMs);
  let next = 0;
  return {
    async run(nowMs: number): Promise<void> {
      const due: TransmitRow[] = [];
      for (; next < pending.length && pending[next]!.atMs <= nowMs; next++) {
        const { atMs, body, merchantId } = pending[next]!;
        const v = validateTransmit(body, { mode: 'sandbox' });
        if (!v.ok) throw new Error(`a simulated transmit is invalid: ${JSON.stringify(v.errors)}`);
        due.push(transmitRow(merchantId, v.value, new Date(atMs)));
      }
      if (due.length > 0) await insertTransmits(db, due, statIncrements(due), new Date(nowMs));
      await also?.run(nowMs);
    },
    observe: async (nowMs) => also?.observe(nowMs),
    // A transmit need not stop the clock: it is stored before the next claim, whenever that is.
    next: () => also?.next(),
  };
}
