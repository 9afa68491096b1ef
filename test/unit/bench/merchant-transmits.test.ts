// The rescue bench's merchant: the payments it recovered itself reach rescued as transmits with
// their earlier tries, valid for the route's own validation, so the card's windows can count
// them; and a population's card history holds only what happened to its orders.
import { describe, expect, it } from 'vitest';
import { validateTransmit } from '../../../src/domain/index.ts';
import { merchantTransmits } from '../../bench/rescue/merchant-transmits.ts';
import { drawPopulation } from '../../bench/rescue/orders.ts';
import { drawWorld } from '../../bench/rescue/world.ts';

describe('the simulated merchant transmits the payments it recovered itself', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: one valid transmit per merchant-recovered order, with every try before it; no event of an order never handed over', (seed) => {
    const pop = drawPopulation(drawWorld(seed, 'random'), 300);
    const handed = new Set(pop.orders.map((o) => o.index));
    const recovered = [...pop.history.values()].flatMap((events) => events.filter((e) => e.by === 'merchant' && e.approved));
    const sent = merchantTransmits(pop);
    expect(sent).toHaveLength(recovered.length);
    for (const { atMs, body } of sent) {
      const v = validateTransmit(body, { mode: 'sandbox' });
      expect(v.ok, JSON.stringify(v)).toBe(true);
      const order = Number(String(body.orderId).slice(4));
      expect(handed.has(order)).toBe(false);
      const events = [...pop.history.values()].flat().filter((e) => e.order === order);
      const priors = (body.transaction as { priorAttempts: unknown[] }).priorAttempts;
      expect(priors).toHaveLength(events.filter((e) => e.atMs < atMs).length);
      expect(events.filter((e) => e.atMs > atMs)).toEqual([]);
    }
    // Every event belongs to an order handed over or to one the merchant recovered (and transmitted).
    const transmitted = new Set(sent.map((t) => Number(String(t.body.orderId).slice(4))));
    for (const events of pop.history.values()) for (const e of events) expect(handed.has(e.order) || transmitted.has(e.order)).toBe(true);
  });
});
