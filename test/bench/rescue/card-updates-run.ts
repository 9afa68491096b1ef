// The --card-updates variants of the rescue bench: every seed's orders run by the REAL engine
// once per variant, side by side in one run on one simulated clock (one merchant per seed and
// variant, each merchant's settings the variant's):
//   (a) off: today's behaviour, no waiting for an updated card, no cascade;
//   (b) updater: the simulated gateway reports the successor card on a card-must-change decline
//       for issuers enrolled in its account updater (updates-processor.ts);
//   (c) merchant: the merchant's setting awaitUpdatedCard on, and a share of payers give their
//       new card after order.card_update_needed, after a delay, sent through the very function
//       POST /v1/orders/{key}/payment-method calls (attachPaymentMethod);
//   (d) cascade: the merchant opted in to the payer's other cards, and a share of payers have a
//       second stored card (the order lists it in payer.otherCardTokens; the card is in the vault);
//   (e) all three together.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ManualClock } from '../../../src/clock.ts';
import type { Db } from '../../../src/db/client.ts';
import { selectRows } from '../../../src/db/queries/claim-orders.ts';
import { setAwaitUpdatedCard } from '../../../src/db/queries/card-update-setting.ts';
import { setMerchantSettings } from '../../../src/db/queries/merchant-settings.ts';
import { cards as cardRows, orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { defaultRules } from '../../../src/engine/rules.ts';
import { RescuedError } from '../../../src/errors.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { attachPaymentMethod, type CardVault } from '../../../src/orders/payment-method.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import type { CardEvent } from './bank.ts';
import type { Card } from './cards.ts';
import { drive, engineConfig, orderUuid, withScratchDatabase, type Outside } from './engine-run.ts';
import { simOrderRow } from './engine-seeds.ts';
import { transmitFeed, type TransmittingMerchant } from './merchant-transmits.ts';
import type { Order, Population } from './orders.ts';
import { spareCards } from './spare-cards.ts';
import { createUpdatesProcessor, last4Of, SETTINGS, tokenOf, VARIANTS, type HeldCard, type UpdatesProcessor, type Variant, type VariantRun } from './updates-processor.ts';

const BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX' } as const;
const idOf = (r: VariantRun, o: Order) => orderUuid(r.pop.world.seed * 100 + VARIANTS.indexOf(r.variant), o.index);

/** One order as the run left it. */
export interface OrderOutcome {
  variant: Variant;
  seed: number;
  amount: number;
  approved: boolean;
  recoveredBy: string | null;
  attempts: CardEvent[];
}

export interface UpdatesRun {
  outcomes: OrderOutcome[];
  held: HeldCard[];
  merchantUpdates: { sent: number; refused: number };
  tally: ReturnType<UpdatesProcessor['tally']>;
  steps: number;
  seconds: number;
}

/** The order row of the variant: its own id and tokens, and the payer's second card listed where the merchant cascades. */
function orderRow(r: VariantRun, o: Order, merchantId: string) {
  const row = simOrderRow(r.pop, o, merchantId);
  const request = row.request as { paymentMethod: Record<string, unknown> };
  const other = SETTINGS[r.variant].cascade && r.spares.get(o.card)!.other;
  const token = tokenOf(r, o.card, 'original');
  return {
    ...row, id: idOf(r, o), cardToken: token,
    request: { ...request, paymentMethod: { ...request.paymentMethod, cardNumber: token }, ...(other ? { payer: { id: `payer-${o.card.index}`, otherCardTokens: [tokenOf(r, o.card, 'other')] } } : {}) },
  };
}

/** The payer's second card as the vault holds it (what tokenize with payer.id leaves; the number is never read here). */
function vaultRow(r: VariantRun, card: Card, merchantId: string) {
  const other = r.spares.get(card)!.other!;
  return { token: tokenOf(r, card, 'other'), merchantId, fingerprint: `sim-${tokenOf(r, card, 'other')}`, sealed: 'simulated', keyId: 'v1', bin: '400000', last4: last4Of(other), expMonth: 12, expYear: 2030, brand: BRAND_NAMES[other.brand], payerId: `payer-${card.index}` };
}

/** The merchants' side of (c): new cards sent after order.card_update_needed, through attachPaymentMethod. */
function merchantUpdates(db: Db, clock: ManualClock, runs: Map<string, { run: VariantRun; order: Order; merchantId: string }>): Outside & { counts: { sent: number; refused: number } } {
  const seen = new Set<string>();
  const queue: { atMs: number; id: string }[] = [];
  const counts = { sent: 0, refused: 0 };
  const vault: CardVault = {
    find: async (_merchantId, token) => {
      const [, , variant, seed, index] = token.split('_');
      const found = [...runs.values()].find((x) => x.run.variant === variant && String(x.run.pop.world.seed) === seed && String(x.order.card.index) === index);
      const s = found && found.run.spares.get(found.order.card)!.successor;
      if (!s) return undefined;
      const now = clock.now();
      return { token, bin: '400000', last4: last4Of(s.card), month: 12, year: 2030, brand: BRAND_NAMES[s.card.brand], test: false, createdAt: now, updatedAt: now };
    },
    tokenize: () => Promise.reject(new Error('the simulation sends tokens only')),
  };
  return {
    counts,
    async observe(nowMs) {
      const rows = await selectRows(db, sql`select order_session_key as id from webhook_events where type = 'order.card_update_needed'`);
      for (const { id } of rows as { id: string }[]) {
        if (seen.has(id)) continue;
        seen.add(id);
        const x = runs.get(id);
        const after = x && SETTINGS[x.run.variant].merchant ? x.run.spares.get(x.order.card)!.successor?.merchantAfterMs : undefined;
        // A payer who answers after the order's deadline answers too late.
        if (after !== undefined && nowMs + after < x!.order.expiryMs) queue.push({ atMs: nowMs + after, id });
      }
    },
    async run(nowMs) {
      const due = queue.filter((q) => q.atMs <= nowMs);
      for (const q of due) {
        queue.splice(queue.indexOf(q), 1);
        const x = runs.get(q.id)!;
        try {
          await attachPaymentMethod({ db, clock, mode: 'sandbox' }, vault, x.merchantId, { orderSessionKey: q.id }, { token: tokenOf(x.run, x.order.card, 'successor') });
          counts.sent++;
        } catch (err) {
          // The order ended before the card came (approved on a retry, or its deadline): the route's 409.
          if (!(err instanceof RescuedError)) throw err;
          counts.refused++;
        }
      }
    },
    next: () => (queue.length === 0 ? undefined : Math.min(...queue.map((q) => q.atMs))),
  };
}

async function setUp(db: Db, pops: readonly Population[], transmitting: TransmittingMerchant[]): Promise<Map<string, { run: VariantRun; order: Order; merchantId: string }>> {
  const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: randomBytes(32).toString('base64') }, 'v1'), mode: 'sandbox' });
  const byId = new Map<string, { run: VariantRun; order: Order; merchantId: string }>();
  for (const pop of pops) {
    const spares = new Map([...pop.history.keys()].map((card) => [card, spareCards(pop.world, card)]));
    for (const variant of VARIANTS) {
      const run: VariantRun = { variant, pop, spares };
      const merchantId = (await merchants.byMid((await merchants.add({ name: `Card updates ${variant}, seed ${pop.world.seed}` })).mid)).id;
      await setAwaitUpdatedCard(db, merchantId, SETTINGS[variant].merchant);
      await setMerchantSettings(db, merchantId, { cascadeOtherCards: SETTINGS[variant].cascade });
      const rows = pop.orders.map((o) => orderRow(run, o, merchantId));
      for (let i = 0; i < rows.length; i += 1000) await db.insert(orders).values(rows.slice(i, i + 1000));
      if (SETTINGS[variant].cascade) {
        const withOther = [...pop.history.keys()].filter((c) => spares.get(c)!.other);
        if (withOther.length) await db.insert(cardRows).values(withOther.map((c) => vaultRow(run, c, merchantId)));
      }
      for (const o of pop.orders) byId.set(idOf(run, o), { run, order: o, merchantId });
      transmitting.push({ pop, merchantId, tokenOf: (card) => tokenOf(run, card, 'original') });
    }
  }
  return byId;
}

/** Every seed under every variant, run by the real engine on a scratch database to the last deadline. */
export async function runCardUpdates(pops: readonly Population[], opts: { databaseUrl: string; stepMs: number }): Promise<UpdatesRun> {
  const started = performance.now();
  return withScratchDatabase(opts.databaseUrl, 'cardupd_sim', async (db, log) => {
    const transmitting: TransmittingMerchant[] = [];
    const byId = await setUp(db, pops, transmitting);
    const all = pops.flatMap((p) => p.orders);
    const clock = new ManualClock(Math.min(...all.map((o) => o.handoverAtMs)));
    const runs = [...new Map([...byId.values()].map((x) => [`${x.run.variant}:${x.run.pop.world.seed}`, x.run])).values()];
    const processor = createUpdatesProcessor(runs, idOf, clock);
    // awaitUpdatedCard off unless the merchant's own setting (the variant's) says on.
    const engine = createEngine({ db, processor, clock, log, config: { ...engineConfig(), awaitUpdatedCard: 'off' }, testMode: true });
    const updates = merchantUpdates(db, clock, byId);
    const outside = transmitFeed(db, transmitting, updates);
    const steps = await drive(db, engine, clock, { stepMs: opts.stepMs, marginMs: defaultRules.timing.expiryMarginMs }, Math.max(...all.map((o) => o.expiryMs)), outside);
    await engine.stop();
    const rows = await selectRows(db, sql`select id, status, recovered_by from orders`);
    const open = rows.filter((r) => r.status !== 'APPROVED' && r.status !== 'EXPIRED');
    if (open.length > 0) throw new Error(`${open.length} orders are not final at the end of the run`);
    const attempts = processor.attempts();
    const outcomes = rows.map((r): OrderOutcome => {
      const x = byId.get(String(r.id))!;
      const mine = attempts.get(String(r.id)) ?? [];
      if ((r.status === 'APPROVED') !== mine.some((e) => e.approved)) throw new Error(`order ${String(r.id)}: the engine and the processor disagree on its approval`);
      return { variant: x.run.variant, seed: x.run.pop.world.seed, amount: x.order.amount, approved: r.status === 'APPROVED', recoveredBy: (r.recovered_by as string | null) ?? null, attempts: mine };
    });
    return { outcomes, held: processor.held(), merchantUpdates: updates.counts, tally: processor.tally(), steps, seconds: (performance.now() - started) / 1000 };
  });
}
