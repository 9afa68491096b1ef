// Learned timing through the engine, on both databases: attempts recorded with engine.learning
// "on" fill the learned table; `rescued report` and GET /v1/reports/recovery show what was
// learned; a later order's plan moves to the hour that approved, and `rescued orders show`
// and GET /v1/orders/{key} (nextAttempt.reason) say why; "frozen" plans from the
// table but adds nothing; "off" plans the static model's slot with its plain reason; the
// prune sweep drops cells unused for 400 days. The
// processor is a stand-in gateway that approves only from 14:00 UTC (payers at UTC+0).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, insertTestOrders } from '../../helpers/engine.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { runCli } from '../../helpers/cli.ts';
import { ManualClock } from '../../../src/clock.ts';
import { orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import type { Processor } from '../../../src/processors/types.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import type { LearningMode } from '../../../src/engine/learning/source.ts';

const VISA = sandboxTestCards().find('4111111111111111')!;
// Tuesday 8 September 2026 (days 6–10): the attempts the table learns from.
const TUE_08 = new Date('2026-09-08T08:00:00Z');
const TUE_16 = new Date('2026-09-08T16:00:00Z');
// Sunday 4 October: a new 05 decline, which the static model retries 48 h after (the decline is an hour before it comes in: Tuesday the 6th at 07:xx).
const SUN = new Date('2026-10-04T08:00:00Z');

/** Approves from 14:00 UTC, declines 05 before. */
function afternoonGateway(clock: ManualClock): Processor {
  let n = 0;
  return {
    name: 'sandbox',
    async authorize() {
      n++;
      const approved = clock.now().getUTCHours() >= 14;
      return { approved, responseCode: approved ? '00' : '05', processorRef: `ref_${n}`, replayed: false };
    },
    refund: async (r) => ({ approved: true, responseCode: '00', processorRef: `refund_${r.idempotencyKey}`, replayed: false }),
    void: async (r) => ({ approved: true, responseCode: '00', processorRef: `void_${r.idempotencyKey}`, replayed: false }),
  };
}

describe.each(DB_KINDS)('learned timing on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-learning-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let t: TestApp;
  let merchant: { id: string; mid: string; clientId: string };
  const db = () => t.tdb.database.db;
  const clock = new ManualClock(TUE_08);
  let cardNo = 0;
  const cli = async (...args: string[]) => {
    const res = await runCli(args, { ...env, ...(t.tdb.url ? { DATABASE_URL: t.tdb.url } : {}) }, t.tdb.database);
    expect(res.status, res.stderr).toBe(0);
    return res.stdout;
  };
  const engine = (learning: LearningMode) => createEngine({ db: db(), processor: afternoonGateway(clock), clock, log: silentLog, config: engineConfig({ learning }) });
  /** GET `url` of the merchant API as the merchant. */
  const api = async (url: string) => {
    const { token } = await t.tokens.issue({ merchantId: merchant.id, mid: merchant.mid, clientId: merchant.clientId });
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** `n` 05 declines on cards of their own (no card cap shared), due at `due`. */
  const declines = (n: number, due: Date, expiresAt: Date, status: 'SUBMITTED' | 'PENDING' = 'PENDING') =>
    insertTestOrders(db(), Array.from({ length: n }, () => ({
      card: VISA, token: `tok_learning_${kind}_${++cardNo}`, merchantId: merchant.id, createdAt: new Date(due.getTime() - 3_600_000),
      expiresAt, status, nextAttemptAt: due, declineCode: '05', declineSource: 'NA',
    })));
  const report = async () => JSON.parse(await cli('report', '--json')).learnedTiming;
  const show = async (key: string) => JSON.parse(await cli('orders', 'show', key, '--json'));

  beforeAll(async () => {
    t = await testApp(kind, undefined, { clock });
    const creds = await t.merchants.add({ name: 'Learning' });
    merchant = { id: (await t.merchants.byMid(creds.mid)).id, mid: creds.mid, clientId: creds.clientId };
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('on: each recorded attempt counts in its cell, and the report shows the hours that approve', async () => {
    expect(await report()).toMatchObject({ cells: 0, attempts: 0, families: [] });
    const learning = engine('on');
    // The 08:00 orders end at their deadline after the decline; the 16:00 ones are approved.
    await declines(30, TUE_08, new Date('2026-09-08T09:00:00Z'));
    await declines(30, TUE_16, new Date('2026-09-30T00:00:00Z'));
    clock.set(TUE_08);
    expect(await learning.runOnce()).toBe(30);
    clock.set(TUE_16);
    expect(await learning.runOnce()).toBe(30);
    const learned = await report();
    expect(learned).toMatchObject({ cells: 2, attempts: 60, approvals: 30, minAttempts: 20 });
    expect(learned.families).toEqual([{
      family: 'do_not_honor', attempts: 60, approvals: 30,
      best: [{ hour: 16, attempts: 30, approvals: 30 }, { hour: 8, attempts: 30, approvals: 0 }],
      worst: [],
    }]);
    // The merchant's own report over the API: the same object.
    expect((await api('/v1/reports/recovery')).learnedTiming).toEqual(learned);
    const text = await cli('report');
    expect(text).toContain('learned timing: 60 retries in 2 cells, 50.0% approved');
    expect(text).toMatch(/do_not_honor\s+60\s+50\.0%\s+16–17 100\.0% of 30, 08–09 0\.0% of 30/);
  });

  it('a new order is planned at the hour that approved, and orders show says why', async () => {
    clock.set(SUN);
    const [key] = await declines(1, SUN, new Date('2026-11-05T08:00:00Z'), 'SUBMITTED');
    await engine('on').runOnce();
    const o = await show(key!);
    const at = new Date(o.next.at);
    expect([at.toISOString().slice(0, 10), at.getUTCHours()]).toEqual(['2026-10-06', 16]);
    expect(o.next.why).toMatch(/^learned \(all merchants\): do_not_honor on 411111, Tue 16–17 local: 100 % of 30 attempts \(days 6–10; expected \d+ % from 30 attempts\)$/);
    expect(await cli('orders', 'show', key!)).toContain(`(why: ${o.next.why})`);
    expect((await api(`/v1/orders/${key}`)).nextAttempt).toEqual({ at: o.next.at, reason: o.next.why });
  });

  it('frozen: plans from the table, adds nothing to it; off: the static slot and its plain reason', async () => {
    clock.set(SUN);
    const [frozenKey] = await declines(1, SUN, new Date('2026-11-05T08:00:00Z'), 'SUBMITTED');
    const [due] = await declines(1, SUN, new Date('2026-11-05T08:00:00Z'));
    await engine('frozen').runOnce();
    const [row] = await db().select().from(orders).where(eq(orders.id, due!));
    expect(row!.attemptCount).toBe(1); // attempted and declined under "frozen" ...
    expect(await report()).toMatchObject({ attempts: 60 }); // ... and not counted
    expect((await show(frozenKey!)).next.why).toMatch(/^learned \(all merchants\): do_not_honor on 411111, Tue 16–17 local/);

    const [offKey] = await declines(1, SUN, new Date('2026-11-05T08:00:00Z'), 'SUBMITTED');
    await engine('off').runOnce();
    const off = await show(offKey!);
    expect(off.next.why).toBe('daily_spacing');
    expect([off.next.at.slice(0, 10), new Date(off.next.at).getUTCHours()]).toEqual(['2026-10-06', 7]); // 48 h after the 07:00 decline
    expect(await report()).toMatchObject({ attempts: 60 });
  });

  it('the prune sweep drops cells no attempt touched for 400 days', async () => {
    clock.set(new Date(TUE_16.getTime() + 399 * 86_400_000));
    await engine('off').sweepOnce();
    expect(await report()).toMatchObject({ cells: 2, attempts: 60 });
    clock.set(new Date(TUE_16.getTime() + 401 * 86_400_000));
    await engine('off').sweepOnce();
    expect(await report()).toMatchObject({ cells: 0, attempts: 0, families: [] });
    // The sums over every merchant went too: a new order is planned on the prior again.
    const [key] = await declines(1, clock.now(), new Date(clock.now().getTime() + 32 * 86_400_000), 'SUBMITTED');
    await engine('on').runOnce();
    expect((await show(key!)).next.why).toBe('prior: daily_spacing');
  });
});
