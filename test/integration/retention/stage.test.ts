// The purge as the daemon runs it (src/retention/stage.ts), on both databases: on its cron
// schedule, with one log line naming the counts per class it removed and never a card, and
// the metrics GET /metrics serves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { createLogger } from '../../../src/log.ts';
import { registry } from '../../../src/metrics.ts';
import { startRetentionStage } from '../../../src/retention/stage.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { DB_KINDS } from '../../helpers/db.ts';
import { waitFor } from '../../helpers/wait.ts';

const DAY = 86_400_000;

async function purgedOrders(): Promise<number> {
  const metric = (await registry.getSingleMetric('rescued_purged_total')?.get())?.values.find((v) => v.labels.class === 'orders');
  return metric?.value ?? 0;
}

describe.each(DB_KINDS)('the purge sweep on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-purge-stage-'));
  const t0 = Date.now();
  const clock = new ManualClock(t0);
  let f: ApiFixture;
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs on its schedule and logs one line of what it removed, without card data', async () => {
    const token = await f.a.tokenOf('4000000000009987');
    const declined = await f.post('/v1/evaluate', evaluateBody(token, { tx: { responseCode: '41', responseCodeSource: 'iso8583' } }));
    expect(declined.json()).toMatchObject({ status: 'DECLINED' });
    const configFile = join(dataDir, 'rescued.json');
    writeFileSync(configFile, JSON.stringify({ retention: { purgeCron: '* * * * * *', orderDays: 10, cardDays: 5 } }));
    const config = loadConfig({ configFile, env: { RESCUED_DATA_DIR: dataDir, ...(f.t.tdb.url ? { DATABASE_URL: f.t.tdb.url } : {}) } });
    const before = await purgedOrders();
    clock.set(t0 + 11 * DAY);
    const stage = startRetentionStage({ config, log, database: f.t.tdb.database }, clock);
    try {
      const line = await waitFor(() => lines.find((l) => l.msg === 'purge: removed data past its retention'), { what: 'the purge sweep\'s log line' });
      expect(line).toMatchObject({ component: 'retention', removed: { orders: 1, cards: 1 }, at: new Date(t0 + 11 * DAY).toISOString() });
      expect(JSON.stringify(lines)).not.toContain(token);
      expect(JSON.stringify(lines)).not.toMatch(/4000000000009987|400000\d{6}9987/);
      expect(await purgedOrders()).toBe(before + 1);
      expect((await f.post('/v1/outcome', { orderSessionKey: declined.json().orderSessionKey })).statusCode).toBe(404);
    } finally {
      await stage.stop();
    }
    // The next rounds found nothing: one line only.
    expect(lines.filter((l) => l.msg === 'purge: removed data past its retention')).toHaveLength(1);
  });
});
