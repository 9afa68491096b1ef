// One resolution of an order's original decline everywhere, and one shape of an order in every
// JSON output. The README's own sample (samples/requests/evaluate-mit.json: declined `51` at
// Stripe, "Insufficient funds") is sent through the API; `rescued report` (the object the
// console's charts and GET /v1/reports/recovery show), `orders show` and the engine's plan all
// name insufficient_funds, soft, where the report used to say unknown. `orders show --json`
// and `orders list --json` give the amount in minor units and the card as {brand, last4}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SAMPLE_MIT, type ApiFixture } from '../../helpers/api.ts';
import { runCli } from '../../helpers/cli.ts';

const SAMPLE_TX = SAMPLE_MIT.transaction as { amount: number; responseCode: string; responseCodeSource: string };

describe.each(DB_KINDS)('the README sample\'s decline, resolved the same in report and show, on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-figures-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let f: ApiFixture;
  const keys: string[] = [];
  const run = (...args: string[]) => runCli(args, env, f.t.tdb.database);
  const json = async (...args: string[]) => {
    const res = await run(...args, '--json');
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  };

  beforeAll(async () => {
    f = await apiFixture(kind);
    const card = await f.a.tokenOf('4000000000009995');
    for (let i = 0; i < 3; i++) {
      // The sample as the README sends it: only the ids, the card and the times are the caller's.
      const res = await f.post('/v1/evaluate', evaluateBody(card, { mit: true, tx: { timestampUtc: new Date(Date.now() - 600_000).toISOString() } }));
      expect(res.statusCode, res.body).toBe(200);
      keys.push(res.json().orderSessionKey);
    }
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the sample is the one the README describes: 51 from stripe', () => {
    expect([SAMPLE_TX.responseCode, SAMPLE_TX.responseCodeSource]).toEqual(['51', 'stripe']);
  });

  it('rescued report puts every order under insufficient_funds (soft), none under unknown', async () => {
    const report = await json('report', '--merchant', f.a.mid);
    expect(report.byReason).toEqual([expect.objectContaining({ reason: 'insufficient_funds', class: 'soft', orders: 3 })]);
    const text = (await run('report', '--merchant', f.a.mid)).stdout;
    expect(text).toContain('insufficient_funds (soft)');
    expect(text).not.toContain('unknown');
  });

  it('GET /v1/reports/recovery (what the console charts) says the same', async () => {
    const res = await f.get('/v1/reports/recovery');
    expect(res.json().byReason).toEqual([expect.objectContaining({ reason: 'insufficient_funds', class: 'soft', orders: 3 })]);
  });

  it('rescued orders show resolves the same decline, in text and JSON', async () => {
    const shown = await json('orders', 'show', keys[0]!);
    expect(shown.originalDecline).toEqual({ code: '51', source: 'stripe', reason: 'insufficient_funds', class: 'soft' });
    const text = (await run('orders', 'show', keys[0]!)).stdout;
    expect(text).toContain('declined: 51 (stripe) → insufficient_funds, soft');
  });

  it('orders show --json and orders list --json: minor units and one card shape', async () => {
    const shown = await json('orders', 'show', keys[0]!);
    const listed = (await json('orders', 'list', '--merchant', f.a.mid)).find((o: { orderSessionKey: string }) => o.orderSessionKey === keys[0]);
    expect(shown.amount).toBe(SAMPLE_TX.amount);
    expect(listed.amount).toBe(SAMPLE_TX.amount);
    expect(shown.card).toEqual({ brand: 'VISA', last4: '9995' });
    expect(listed.card).toEqual(shown.card);
    for (const key of ['orderSessionKey', 'orderId', 'mid', 'kind', 'status', 'reason', 'currency', 'confirmationId', 'expiresAt', 'createdAt', 'finishedAt']) {
      expect(shown[key], key).toEqual(listed[key]);
    }
    const found = await json('orders', 'find', shown.orderId);
    expect(found).toEqual([listed]);
    // The text keeps the major units a person reads.
    expect((await run('orders', 'show', keys[0]!)).stdout).toContain('amount:   19.99 USD, VISA ending 9995');
  });
});
