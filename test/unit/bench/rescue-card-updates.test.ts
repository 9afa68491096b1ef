// The rescue bench's --card-updates variants (test/bench/rescue.bench.ts): the payer's spare
// cards are a pure function of the seed and exist only where the story says (a successor only
// for a card that must change, the updater knowing only reissued cards), and the simulated
// gateway reports the successor only on a card-gone decline of an enrolled issuer, in the
// variants that have the updater, and charges the successor when its stored card is named.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import type { Card } from '../../bench/rescue/cards.ts';
import { drawPopulation, type Population } from '../../bench/rescue/orders.ts';
import { spareCards } from '../../bench/rescue/spare-cards.ts';
import { createUpdatesProcessor, tokenOf, type Variant, type VariantRun } from '../../bench/rescue/updates-processor.ts';
import { drawWorld } from '../../bench/rescue/world.ts';

const pops = Array.from({ length: 8 }, (_, i) => drawPopulation(drawWorld(i + 1), 200));
const cardsOf = (p: Population) => [...p.history.keys()];

describe('spare cards', () => {
  it('are a pure function of the seed and the card', () => {
    const [p] = pops;
    for (const c of cardsOf(p!)) expect(JSON.stringify(spareCards(p!.world, c))).toBe(JSON.stringify(spareCards(drawWorld(1), c)));
  });

  it('a successor only for a card that must change; the updater knows only reissued cards; some payers have a second card', () => {
    let successors = 0;
    let known = 0;
    let others = 0;
    for (const p of pops) {
      for (const c of cardsOf(p)) {
        const s = spareCards(p.world, c);
        const mustChange = c.replacedAtMs !== Infinity || ['expired', 'lost_or_stolen', 'closed', 'invalid_number'].includes(c.reason);
        expect(s.successor !== undefined).toBe(mustChange);
        if (s.other) others++;
        if (!s.successor) continue;
        successors++;
        expect(s.successor.card.replacedAtMs).toBe(Infinity);
        if (s.successor.updater) known++;
        if (c.replacedAtMs === Infinity && ['closed', 'invalid_number'].includes(c.reason)) expect(s.successor.updater).toBeUndefined();
        if (c.replacedAtMs === Infinity && c.reason === 'expired' && s.successor.updater) expect(s.successor.updater).toBe('expiry');
        if (s.successor.merchantAfterMs !== undefined) expect(s.successor.merchantAfterMs).toBeGreaterThan(0);
      }
    }
    expect(successors).toBeGreaterThan(20);
    expect(known).toBeGreaterThan(0);
    expect(known).toBeLessThan(successors);
    expect(others).toBeGreaterThan(50);
  });
});

describe('the simulated gateway of the variants', () => {
  // A card replaced before the engine's attempt, its issuer enrolled in the updater.
  const pop = pops.find((p) => cardsOf(p).some((c) => c.replacedAtMs !== Infinity && spareCards(p.world, c).successor?.updater === 'replacement'))!;
  const card = cardsOf(pop).find((c) => c.replacedAtMs !== Infinity && spareCards(pop.world, c).successor?.updater === 'replacement')!;
  const order = pop.orders.find((o) => o.card === card)!;
  const run = (variant: Variant): VariantRun => ({ variant, pop: { ...pop, orders: [order] }, spares: new Map(cardsOf(pop).map((c: Card) => [c, spareCards(pop.world, c)])) });
  const request = (r: VariantRun, n: number, over = {}) => ({ idempotencyKey: `o:${n}`, reference: 'o', merchantId: 'm', cardToken: tokenOf(r, card, 'original'), amount: order.amount, currency: 'USD', isMIT: true, ...over });

  it('reports the successor on the old card\'s card-gone decline, and charges the successor when its stored card is named', async () => {
    const r = run('updater');
    const clock = new ManualClock(Math.max(card.replacedAtMs, order.handoverAtMs) + 60_000);
    const p = createUpdatesProcessor([r], () => 'o', clock);
    const first = await p.authorize(request(r, 1));
    expect(first).toMatchObject({ approved: false, responseCode: card.replacedCode, cardUpdate: { kind: 'replacement', gatewayReference: expect.stringMatching(/^au_updater_/) } });
    await p.authorize(request(r, 2, { credential: { kind: 'gateway', gatewayReference: first.cardUpdate!.gatewayReference } }));
    expect(p.tally().get('updater')).toMatchObject({ original: { attempts: 1 }, successor: { attempts: 1 }, updates: 1 });
    // The same key again is the first answer, not another charge.
    expect(await p.authorize(request(r, 1))).toMatchObject({ replayed: true });
    expect(p.sent()).toBe(2);
  });

  it('says nothing without the updater, and refuses a card the payer does not hold', async () => {
    const r = run('merchant');
    const p = createUpdatesProcessor([r], () => 'o', new ManualClock(Math.max(card.replacedAtMs, order.handoverAtMs) + 60_000));
    expect((await p.authorize(request(r, 1))).cardUpdate).toBeUndefined();
    await expect(p.authorize(request(r, 2, { cardToken: 'tok_original_merchant_1_999999' }))).rejects.toThrow(/unexpected charge/);
  });
});
