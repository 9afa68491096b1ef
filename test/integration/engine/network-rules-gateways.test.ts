// The card networks' counters are per card and merchant, not per gateway: one Visa card whose
// orders are charged through two different gateways (Stripe and an HTTP bridge) has one
// 30-day reattempt budget between them (DESIGN.md §3). Here the budget is 2: each order gets
// one attempt, at its own gateway, and then neither gets another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ResolvedConfig } from '../../../src/config/index.ts';
import { attempts, orders, processorAccounts } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';
import { startBridgeFake, type BridgeFake } from '../../fakes/http/server.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-28T00:00:00Z');
const VISA = '4242424242424242';

describe.each(DB_KINDS)('network rules across gateways on %s', (kind) => {
  let f: EngineFixture;
  let stripe: StripeFake;
  let bridge: BridgeFake;

  beforeAll(async () => {
    [f, stripe, bridge] = await Promise.all([engineFixture(kind, { poolSize: 4 }), startStripeFake(), startBridgeFake()]);
    stripe.fallback({ kind: 'decline', declineCode: 'insufficient_funds', networkDeclineCode: '51' });
    bridge.fallback({ kind: 'decline', responseCode: '51', rawCode: 'insufficient_funds' });
    const accounts = createAccountService({ db: f.db, ring: f.ring, mode: 'sandbox' });
    await accounts.add(f.mid, { type: 'stripe', label: 'stripe', credentials: { secretKey: stripe.key, rawCardData: true } });
    await accounts.add(f.mid, { type: 'http', label: 'bridge', credentials: { url: bridge.url, secret: bridge.secret } });
  });
  afterAll(async () => Promise.all([f?.close(), stripe?.close(), bridge?.close()]));

  it('a Visa card retried through Stripe and a bridge counts once toward one reattempt limit', async () => {
    const clock = new ManualClock(T0);
    const settings = { ...(Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor']), timeoutMs: 1000, gatewayUrls: { stripe: stripe.url } };
    const engine = createEngine({
      db: f.db, clock, log: silentLog, config: engineConfig({ visaMaxReattemptsPer30Days: 2 }),
      processor: createProcessorRouter({ db: f.db, ring: f.ring, vault: f.vault, sandbox: undefined, mode: 'sandbox', settings, log: silentLog }),
    });
    const card = sandboxTestCards().find(VISA)!;
    const token = await f.tokenOf(VISA);
    const base = { card, token, merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING' as const, nextAttemptAt: T0, declineCode: '51' };
    const ids = await insertTestOrders(f.db, [
      { ...base, additionalFields: [{ key: 'processorAccount', value: 'stripe' }] },
      { ...base, additionalFields: [{ key: 'processorAccount', value: 'bridge' }] },
    ]);
    // Every day of the window, twice a day: whatever the planner would like, the card's budget holds.
    for (let day = 0; day < 52; day++) {
      await engine.runOnce();
      clock.advance(12 * 3_600_000);
    }
    await engine.sweepOnce();
    const made = await f.db
      .select({ order: attempts.orderSessionKey, account: processorAccounts.label, status: attempts.status })
      .from(attempts)
      .leftJoin(processorAccounts, eq(processorAccounts.id, attempts.accountId))
      .where(inArray(attempts.orderSessionKey, ids));
    expect(made.map((a) => [a.order === ids[0] ? 'first' : 'second', a.account, a.status]).sort()).toEqual([['first', 'stripe', 'declined'], ['second', 'bridge', 'declined']]);
    expect(stripe.requests.filter((r) => r.path === '/v1/payment_intents')).toHaveLength(1);
    expect(bridge.requests.filter((r) => (r.body as { operation?: string }).operation === 'authorize')).toHaveLength(1);
    const final = await f.db.select({ status: orders.status }).from(orders).where(inArray(orders.id, ids));
    expect(final.map((o) => o.status)).toEqual(['EXPIRED', 'EXPIRED']);
  });
});
