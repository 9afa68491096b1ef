// A cancel racing an engine attempt, many times, on each database: the order never ends
// CANCELLED with a captured charge. Either the cancel commits first (no attempt starts, or
// the approval that lands is voided) or the approval commits first (the cancel is refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { setTimeout as sleep } from 'node:timers/promises';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { DEFAULT_ENGINE_CONFIG } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { attempts, orders, processorCalls } from '../../../src/db/schema.ts';

const RUNS = 40;
/** Cancel this long after the engine starts (negative: before). */
const LEADS_MS = [-3, 0, 1, 2, 4, 30];

describe.each(DB_KINDS)('cancel racing an attempt on %s', (kind) => {
  let f: ApiFixture;
  let engine: Engine;
  const clock = new ManualClock(new Date('2026-11-27T12:00:00Z'));
  const db = () => f.t.tdb.database.db;

  beforeAll(async () => {
    // A little processor latency, so cancels land while attempts are in flight.
    f = await apiFixture(kind, { clock, latencyMs: 3 });
    engine = createEngine({ db: db(), processor: f.t.api.orders.processor!, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true });
  });
  afterAll(async () => {
    await engine.stop();
    await f.close();
  });

  it(`never ends CANCELLED with a captured charge (${RUNS} runs)`, async () => {
    const outcomes = { cancelledFirst: 0, voided: 0, approvedFirst: 0 };
    const tok = await f.a.tokenOf('4111111111111111');
    for (let run = 0; run < RUNS; run++) {
      // A month later each run: the card's network attempt caps (per card, 30 days) start afresh.
      clock.advance(31 * 86_400_000);
      const expiryDateUtc = new Date(clock.now().getTime() + 7 * 86_400_000).toISOString();
      const evaluated = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true, top: { expiryDateUtc }, tx: { responseCode: '05', responseCodeSource: 'iso8583' } }));
      expect(evaluated.statusCode, evaluated.body).toBe(200);
      const key = evaluated.json().orderSessionKey as string;
      await engine.runOnce(); // plans the SUBMITTED order
      // Due now, whatever the planner chose.
      await db().update(orders).set({ nextAttemptAt: clock.now() }).where(eq(orders.id, key));
      // Spread the cancel around the attempt: before the claim, during the processor call, after the answer.
      // These pauses are the scenario (where the cancel lands), not waits: every order is checked
      // after both have returned, whichever came first.
      const lead = LEADS_MS[run % LEADS_MS.length]!;
      const [ran, cancel] = await Promise.all([
        sleep(Math.max(0, -lead)).then(() => engine.runOnce()),
        sleep(Math.max(0, lead)).then(() => f.post(`/v1/orders/${key}/cancel`, {})),
      ]);
      expect(ran).toBeGreaterThanOrEqual(0);
      const [o] = await db().select().from(orders).where(eq(orders.id, key));
      const tries = await db().select().from(attempts).where(eq(attempts.orderSessionKey, key));
      const calls = await db().select().from(processorCalls).where(eq(processorCalls.reference, key));
      const captured = calls.filter((c) => c.operation === 'authorize' && c.approved).length - calls.filter((c) => c.operation === 'void' && c.approved).length;
      if (o!.status === 'CANCELLED') {
        expect(cancel.statusCode).toBe(200);
        expect(captured, `run ${run}`).toBe(0);
        expect(tries.filter((a) => a.status === 'approved')).toHaveLength(0);
        if (tries.some((a) => a.status === 'voided')) outcomes.voided++;
        else outcomes.cancelledFirst++;
      } else {
        expect(o!.status).toBe('APPROVED');
        expect(cancel.statusCode).toBe(409);
        expect(captured).toBe(1);
        outcomes.approvedFirst++;
      }
    }
    expect(outcomes.cancelledFirst + outcomes.voided + outcomes.approvedFirst).toBe(RUNS);
  });
});
