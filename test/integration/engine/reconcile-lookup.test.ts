// A gateway without idempotency keys (NMI here, through its local fake): after an unknown
// outcome the charge is looked up by the attempt's key before anything is sent again. A charge
// that happened is recorded, one that did not is sent once more, and a look-up that fails
// (refused, rate-limited) keeps the attempt unknown: it never lets the charge go out twice.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ResolvedConfig } from '../../../src/config/index.ts';
import { attempts, orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { GatewayError } from '../../../src/processors/connector.ts';
import type { Processor } from '../../../src/processors/types.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { startNmiFake, type NmiFake } from '../../fakes/nmi/server.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-30T00:00:00Z');
const CARD = '4242424242424242';

describe.each(DB_KINDS)('reconciliation by look-up on %s', (kind) => {
  let f: EngineFixture;
  let nmi: NmiFake;
  let clock: ManualClock;
  let engine: ReturnType<typeof createEngine>;
  /** Look-ups refused outright (as a connector may report a 401 or a 429 of its query API) before the real ones. */
  let refuseLookups = 0;
  let router: Processor;

  beforeAll(async () => {
    [f, nmi] = await Promise.all([engineFixture(kind, { poolSize: 4 }), startNmiFake()]);
    clock = new ManualClock(T0);
    await createAccountService({ db: f.db, ring: f.ring, mode: 'sandbox' }).add(f.mid, { type: 'nmi', label: 'nmi', credentials: { securityKey: nmi.key } });
    const settings = { ...(Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor']), timeoutMs: 400, gatewayUrls: { nmi: nmi.url } };
    router = createProcessorRouter({ db: f.db, ring: f.ring, vault: f.vault, sandbox: undefined, mode: 'sandbox', settings, log: silentLog });
    const processor: Processor = {
      ...router,
      lookup: async (req) => {
        if (refuseLookups-- > 0) throw new GatewayError('rejected', 'the query API refused the call', { status: 401 });
        return router.lookup!(req);
      },
    };
    engine = createEngine({ db: f.db, clock, log: silentLog, config: engineConfig({ reconcileAfterMs: 60_000 }), processor });
  });
  afterAll(async () => Promise.all([f?.close(), nmi?.close()]));
  beforeEach(() => clock.set(T0));

  const pending = async () => {
    const [id] = await insertTestOrders(f.db, [{ card: sandboxTestCards().find(CARD)!, token: await f.tokenOf(CARD), merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING', nextAttemptAt: T0 }]);
    return id!;
  };
  const sales = (id: string) => nmi.requests.filter((r) => r.body.type === 'sale' && r.body.orderid === `${id}:1`);
  const charges = (id: string) => [...nmi.charges.values()].filter((c) => c.orderid === `${id}:1`);
  const orderOf = async (id: string) => (await f.db.select().from(orders).where(eq(orders.id, id)))[0]!;
  const round = async () => {
    clock.advance(60_000);
    return engine.runOnce();
  };

  it('a sale that charged without an answer is found by its key and recorded, never sent again', async () => {
    const id = await pending();
    nmi.script({ kind: 'reset_after_charge' });
    expect(await engine.runOnce()).toBe(0);
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    expect(await round()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(sales(id)).toHaveLength(1);
    expect(charges(id)).toHaveLength(1);
    expect(await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id))).toEqual([expect.objectContaining({ status: 'approved', processorRef: [...nmi.charges.entries()].find(([, c]) => c.orderid === `${id}:1`)![0] })]);
  });

  it('a sale that never arrived is found missing and sent once more', async () => {
    const id = await pending();
    nmi.script({ kind: 'reset' });
    expect(await engine.runOnce()).toBe(0);
    expect(await round()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED' });
    expect(sales(id)).toHaveLength(2);
    expect(charges(id)).toHaveLength(1);
  });

  it('a look-up that fails keeps the attempt unknown: no second sale until the look-up answers', async () => {
    const id = await pending();
    nmi.script({ kind: 'reset_after_charge' }, { kind: 'status', status: 429, at: 'query' }, { kind: 'status', status: 403, at: 'query' });
    expect(await engine.runOnce()).toBe(0);
    expect(await round()).toBe(0);
    expect(await round()).toBe(0);
    const [stillUnknown] = await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id));
    expect(stillUnknown).toMatchObject({ status: 'in_flight', unknownSince: T0 });
    expect(sales(id)).toHaveLength(1);
    expect(await round()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(sales(id)).toHaveLength(1);
    expect(charges(id)).toHaveLength(1);
  });

  it('a look-up refused outright (not an answer about the first sale) keeps the attempt unknown too', async () => {
    const id = await pending();
    nmi.script({ kind: 'reset_after_charge' });
    expect(await engine.runOnce()).toBe(0);
    refuseLookups = 2;
    expect(await round()).toBe(0);
    expect(await round()).toBe(0);
    expect(sales(id)).toHaveLength(1);
    expect(await round()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(sales(id)).toHaveLength(1);
    expect(charges(id)).toHaveLength(1);
  });

  it('"nothing charged" is believed only twice the call timeout after the send: a sale still being processed is not sent again', async () => {
    const id = await pending();
    nmi.script({ kind: 'reset' });
    // Reconciled 100 ms after the unknown outcome; calls time out after 400 ms: a look-up finding
    // nothing before 800 ms is not believed.
    const quick = createEngine({ db: f.db, clock, log: silentLog, config: engineConfig({ reconcileAfterMs: 100, timeoutMs: 400 }), processor: router });
    expect(await quick.runOnce()).toBe(0);
    clock.advance(300);
    expect(await quick.runOnce()).toBe(0);
    expect(sales(id)).toHaveLength(1);
    const [waiting] = await f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id));
    expect(waiting).toMatchObject({ status: 'in_flight', unknownSince: T0 });
    clock.advance(600);
    expect(await quick.runOnce()).toBe(1);
    expect(sales(id)).toHaveLength(2);
    expect(charges(id)).toHaveLength(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
  });
});
