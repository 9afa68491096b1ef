// The recovery report on both databases, against a hand-counted data set: the query module's
// figures, the same figures from `rescued report` (JSON, text, CSV) and from
// GET /v1/reports/recovery, which shows a merchant its own figures only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { runCli } from '../../helpers/cli.ts';
import { ManualClock } from '../../../src/clock.ts';
import { recoveryReport } from '../../../src/reports/recovery.ts';
import type { RecoveryReport } from '../../../src/reports/schema.ts';
import { EXPECTED, NOW, dayAt, seedReportData, type Seeded } from './seed.ts';

const figures = (f: { orders: number; recovered: number; lost: number; cancelled: number; open: number; recoveryRate: number | null }) => ({
  orders: f.orders, recovered: f.recovered, lost: f.lost, cancelled: f.cancelled, open: f.open, recoveryRate: f.recoveryRate === null ? null : expect.closeTo(f.recoveryRate, 10),
});

describe.each(DB_KINDS)('recovery report on %s', (kind) => {
  let t: TestApp;
  let s: Seeded;
  let merchantIds: { A: string; B: string };
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-report-'));
  const bearer = async (m: 'A' | 'B') => {
    const merchant = await t.merchants.byMid(s.mids[m]);
    const creds = m === 'A' ? s.credsA : s.credsB;
    return `Bearer ${(await t.tokens.issue({ merchantId: merchant.id, mid: merchant.mid, clientId: creds.clientId })).token}`;
  };

  beforeAll(async () => {
    t = await testApp(kind, undefined, { clock: new ManualClock(NOW) });
    s = await seedReportData(t.tdb.database.db);
    merchantIds = { A: (await t.merchants.byMid(s.mids.A)).id, B: (await t.merchants.byMid(s.mids.B)).id };
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts orders by state, and recovered orders, amounts and rate overall, by reason, brand and merchant', async () => {
    const r = await recoveryReport(t.tdb.database.db, { now: NOW });
    expect(r.ordersByState).toEqual(EXPECTED.ordersByState);
    expect(r.overall).toEqual({ ...figures(EXPECTED.overall), amounts: EXPECTED.overall.amounts });
    expect(r.byReason.map((g) => ({ reason: g.reason, class: g.class, ...figures(g) }))).toEqual(EXPECTED.byReason.map((g) => ({ reason: g.reason, class: g.class, ...figures(g) })));
    expect(r.byBrand.map((g) => ({ brand: g.brand, ...figures(g) }))).toEqual(EXPECTED.byBrand.map((g) => ({ brand: g.brand, ...figures(g) })));
    expect(r.byMerchant.map((g) => [g.mid, g.name, figures(g)])).toEqual([
      [s.mids.A, s.names.A, figures(EXPECTED.byMerchant.A)],
      [s.mids.B, s.names.B, figures(EXPECTED.byMerchant.B)],
    ]);
    // Two codes of two sources (ISO 51, Stripe insufficient_funds) are one reason; its amounts by currency.
    expect(r.byReason[0]!.amounts).toEqual([{ currency: 'USD', recovered: 1000 + 2500 + 5000 + 999, refunded: 200, lost: 1500 }]);
  });

  it('counts attempts per UTC day, done and planned, with the days between', async () => {
    const r = await recoveryReport(t.tdb.database.db, { now: NOW });
    // All time: from the first attempt (order 15's, 100 days back) to the last planned one.
    expect(r.attemptsPerDay.from).toBe(dayAt(-100));
    expect(r.attemptsPerDay.to).toBe(dayAt(2));
    expect(r.attemptsPerDay.days).toHaveLength(103);
    const busy = Object.fromEntries(r.attemptsPerDay.days.filter((d) => d.done || d.planned).map((d) => [d.day, [d.done, d.approved, d.declined, d.planned]]));
    expect(busy).toEqual(Object.fromEntries(Object.entries(EXPECTED.days).map(([offset, v]) => [dayAt(Number(offset)), v])));
    expect(r.attemptsPerDay.plannedLater).toBe(0);
  });

  it('shows the queue, the webhook backlog and the batches in progress, ingesting and rescuing', async () => {
    const r = await recoveryReport(t.tdb.database.db, { now: NOW });
    expect(r.queue).toEqual(EXPECTED.queue);
    expect(r.webhooks).toEqual(EXPECTED.webhooks);
    expect(r.batchesInProgress.map((b) => [b.fileName, b.phase, b.entries, b.accepted, b.rejected, b.final, b.approved, b.expired, b.progress])).toEqual([
      ['big.json', 'ingesting', 1000, 400, 100, 0, 0, 0, 0.5],
      ['rebill-x.json', 'rescuing', 4, 3, 1, 2, 1, 1, 2 / 3],
    ]);
  });

  it('limits every figure to one merchant, and orders and attempts to a start time', async () => {
    const a = await recoveryReport(t.tdb.database.db, { now: NOW, merchantId: merchantIds.A, mid: s.mids.A });
    expect(a.mid).toBe(s.mids.A);
    expect(a.overall).toMatchObject(figures(EXPECTED.byMerchant.A));
    expect(a.byMerchant.map((m) => m.mid)).toEqual([s.mids.A]);
    expect(a.webhooks).toEqual(EXPECTED.webhooksA);
    expect(a.queue).toMatchObject({ toPlan: 1, dueNow: 1, scheduled: 1, parked: 0, inFlight: 1, awaitingChallenge: 1 });
    expect(a.batchesInProgress).toHaveLength(2);
    const b = await recoveryReport(t.tdb.database.db, { now: NOW, merchantId: merchantIds.B });
    expect(b.batchesInProgress).toEqual([]);
    expect(b.queue).toMatchObject({ depth: 1, parked: 1 });
    expect(b.attemptsPerDay.days.find((d) => d.day === dayAt(0))).toMatchObject({ done: 1, approved: 1, planned: 0 });

    const since = new Date(NOW.getTime() - 30 * 86_400_000);
    const recent = await recoveryReport(t.tdb.database.db, { now: NOW, since });
    expect(recent.since).toBe(since.toISOString());
    expect(recent.overall).toMatchObject(figures(EXPECTED.overallSince30d));
    expect(recent.attemptsPerDay.from).toBe(dayAt(-30));
    expect(recent.attemptsPerDay.to).toBe(dayAt(2));
    expect(recent.attemptsPerDay.days.find((d) => d.day === dayAt(-100))).toBeUndefined();
  });

  it('rescued report prints the same figures as JSON, text and CSV, quiet when piped', async () => {
    const env = { RESCUED_DATA_DIR: dataDir };
    const json = await runCli(['report', '--json'], env, t.tdb.database);
    expect(json.status, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    const r = JSON.parse(json.stdout) as RecoveryReport;
    const direct = await recoveryReport(t.tdb.database.db, { now: new Date() });
    for (const key of ['ordersByState', 'overall', 'byReason', 'byBrand', 'byMerchant'] as const) expect(r[key]).toEqual(direct[key]);

    const text = await runCli(['report', '--merchant', s.mids.B], env, t.tdb.database);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain(`recovery report: merchant ${s.mids.B}`);
    expect(text.stdout).toContain('recovered: 2 of 3 decided (66.7%); 1 open, 0 cancelled');
    expect(text.stdout).toContain('recovered amount: 59.99 USD');
    expect(text.stdout).not.toContain(s.names.A);

    const csv = await runCli(['report', '--csv', '--since', '30d'], env, t.tdb.database);
    expect(csv.status, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\r\n');
    expect(lines[0]).toBe('section,key,name,class,orders,open,recovered,lost,cancelled,recovery_rate,recovered_EUR,refunded_EUR,lost_EUR,recovered_USD,refunded_USD,lost_USD');
    expect(lines[1]).toBe('overall,,,,14,6,4,3,1,0.5714,12.00,0.00,0.00,85.00,2.00,20.00');
    expect(lines).toContain(`merchant,${s.mids.A},Acme <Shop> & Co,,11,5,3,2,1,0.6,12.00,0.00,0.00,35.00,2.00,19.00`);
    expect(lines).toContain('reason,invalid_card_number,,hard,1,0,0,1,0,0,0.00,0.00,0.00,0.00,0.00,4.00');
  });

  it('refuses an unknown merchant and a since that is neither a time nor a duration', async () => {
    const env = { RESCUED_DATA_DIR: dataDir };
    const unknown = await runCli(['report', '--merchant', '00000000-0000-4000-8000-000000000000'], env, t.tdb.database);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No merchant with mid');
    const bad = await runCli(['report', '--since', 'yesterday'], env, t.tdb.database);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('since: "yesterday" is neither a time');
    const both = await runCli(['report', '--json', '--csv'], env, t.tdb.database);
    expect(both.status).not.toBe(0);
  });

  it('GET /v1/reports/recovery answers the calling merchant its own figures, and nobody else', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/reports/recovery', headers: { authorization: await bearer('B') } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json() as RecoveryReport & { success: boolean };
    const module = await recoveryReport(t.tdb.database.db, { now: NOW, merchantId: merchantIds.B, mid: s.mids.B });
    expect(body).toEqual({ success: true, result: 'Success', ...module });
    expect(body.byMerchant.map((m) => m.mid)).toEqual([s.mids.B]);
    expect(JSON.stringify(body)).not.toContain(s.mids.A);
    expect(JSON.stringify(body)).not.toContain('rebill-x.json');

    const since = await t.app.inject({ method: 'GET', url: '/v1/reports/recovery?since=2026-11-01T00:00:00Z', headers: { authorization: await bearer('B') } });
    expect((since.json() as RecoveryReport).overall.orders).toBe(3);
    const bad = await t.app.inject({ method: 'GET', url: '/v1/reports/recovery?since=soon', headers: { authorization: await bearer('A') } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, statusCode: 'ERR_REPORT_INVALID_QUERY', errors: [{ field: 'since' }] });
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/reports/recovery' });
    expect(anonymous.statusCode).toBe(401);
  });
});
