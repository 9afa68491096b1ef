// `rescued purge [--dry-run]` on both databases, with the retention periods of a config file
// and a ManualClock the merchant API and the command share: orders, attempts, transmits and
// cards made through the API at one time, purged at later ones. Younger data stays, open
// orders and the cards they need stay, a dry run removes nothing and counts what the real run
// then removes, the batches are bounded, and a second instance does not purge at once.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import { openDatabase, type Database } from '../../../src/db/client.ts';
import { runPurge } from '../../../src/retention/purge.ts';
import { purgeDeps } from '../../../src/retention/stage.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { runCli } from '../../helpers/cli.ts';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';

const DAY = 86_400_000;
const RETENTION = { batchSize: 2, orderDays: 200, cardDays: 30, webhookDays: 100, transmitDays: 50, archiveDays: 40, outboundDays: 20, quarantineDays: 20 };
type Counts = Record<string, { count: number; cutoff: string; batches: number }>;

describe.each(DB_KINDS)('rescued purge on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-purge-'));
  const configFile = join(dataDir, 'rescued.json');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  const t0 = Date.now();
  const clock = new ManualClock(t0);
  let f: ApiFixture;
  const outbound = join(dataDir, 'sftp', 'acme-1234', 'outbound');
  const archived = join(dataDir, 'archive', 'mid-1', '2026-11-28');
  const quarantined = join(dataDir, 'quarantine', 'mid-1', '2026-11-28');
  const purge = (at: number, ...args: string[]) => {
    clock.set(at);
    return runCli(['purge', '--config', configFile, ...args], env, f.t.tdb.database, undefined, clock);
  };
  const counts = async (at: number, ...args: string[]): Promise<Counts> => {
    const res = await purge(at, '--json', ...args);
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout).classes as Counts;
  };
  const only = (c: Counts) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.count]));
  const outcome = async (key: string) => (await f.post('/v1/outcome', { orderSessionKey: key })).statusCode;
  const evaluate = async (card: string, over: Parameters<typeof evaluateBody>[1]) => {
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf(card), over));
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { orderSessionKey: string; status: string };
  };

  const old: string[] = [];
  let young: string;
  let open: string;
  let unused: string;

  beforeAll(async () => {
    f = await apiFixture(kind, { clock, api: { transmitFlushIntervalMs: 60_000 } });
    if (f.t.tdb.url) env.DATABASE_URL = f.t.tdb.url;
    writeFileSync(configFile, JSON.stringify({ retention: RETENTION }));
    // At t0: three hard declines (final at once), an approval after one attempt, and one MIT
    // order still open on its own card; a card tokenized and never used; two transmits.
    for (let i = 0; i < 3; i++) old.push((await evaluate('4000000000009987', { tx: { responseCode: '41', responseCodeSource: 'iso8583' } })).orderSessionKey);
    const approved = await evaluate('4242424242424242', { tx: { ...SOFT } });
    expect(approved.status).toBe('APPROVED');
    old.push(approved.orderSessionKey);
    open = (await evaluate('4000000000000077', { mit: true, top: { expiryDateUtc: new Date(t0 + 400 * DAY).toISOString() } })).orderSessionKey;
    unused = await f.a.tokenOf('5555555555554444');
    for (let i = 0; i < 2; i++) {
      const body = evaluateBody('4111111111111111', { tx: { responseStatus: 'Approved', responseCode: '00' }, top: { isDeclined: false } });
      const res = await f.post('/v1/transmit', { ...body, idempotencyKey: undefined, paymentMethod: { ...(body.paymentMethod as object), cardNumber: undefined, token: undefined } });
      expect(res.statusCode, res.body).toBe(202);
    }
    await f.t.api.transmits.flush();
    // 190 days on: one more hard decline, on a card of its own.
    clock.set(t0 + 190 * DAY);
    young = (await evaluate('4000000000009979', { tx: { responseCode: '43', responseCodeSource: 'iso8583' } })).orderSessionKey;
    // What intake and the results writer leave on disk, and what a merchant might put beside it.
    for (const dir of [outbound, archived, quarantined]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(outbound, 'rebills.json.ack.json'), '{}');
    writeFileSync(join(outbound, 'rebills.json.results.json'), '{}');
    writeFileSync(join(outbound, 'notes.txt'), 'not ours');
    writeFileSync(join(archived, 'b1-rebills.json'), '{}');
    writeFileSync(join(quarantined, 'q-rebills.json'), '{}');
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes nothing younger than its period', async () => {
    const c = await counts(t0 + 5 * DAY);
    expect(Object.values(only(c)).every((n) => n === 0), JSON.stringify(only(c))).toBe(true);
    expect(c.orders!.cutoff).toBe(new Date(t0 + 5 * DAY - 200 * DAY).toISOString());
    expect(c.cards!.cutoff).toBe(new Date(t0 + 5 * DAY - 30 * DAY).toISOString());
    for (const key of [...old, open, young]) expect(await outcome(key)).toBe(200);
    expect(readdirSync(outbound).sort()).toEqual(['notes.txt', 'rebills.json.ack.json', 'rebills.json.results.json']);
  });

  it('files: each folder by its own period, only the classes\' own files', async () => {
    // 25 days: past outboundDays (20) and quarantineDays (20), not archiveDays (40).
    const dry = only(await counts(t0 + 25 * DAY, '--dry-run'));
    expect(dry).toMatchObject({ outboundFiles: 2, quarantineFiles: 1, archiveFiles: 0 });
    expect(readdirSync(outbound)).toHaveLength(3);
    const res = only(await counts(t0 + 25 * DAY));
    expect(res).toMatchObject({ outboundFiles: 2, quarantineFiles: 1, archiveFiles: 0 });
    expect(readdirSync(outbound)).toEqual(['notes.txt']);
    expect(readdirSync(join(dataDir, 'quarantine'))).toEqual([]);
    expect(readdirSync(archived)).toEqual(['b1-rebills.json']);
  });

  it('a dry run removes nothing and counts what the run then removes, in bounded batches', async () => {
    const at = t0 + 210 * DAY;
    const dry = await counts(at, '--dry-run');
    expect(only(dry)).toMatchObject({ orders: 4, attempts: expect.any(Number), transmits: 2, archiveFiles: 1, batches: 0 });
    expect(dry.attempts!.count).toBeGreaterThan(0);
    // The open order's card and the young order's card stay: the old orders' cards and the
    // one tokenized and never used go.
    expect(dry.cards!.count).toBe(3);
    for (const key of old) expect(await outcome(key)).toBe(200);
    expect((await counts(at, '--dry-run')).cards).toEqual(dry.cards);

    const text = await purge(at, '--dry-run');
    expect(text.stdout).toMatch(/^would remove, counting back from .*\nclass +older than +would go\norders +\S+ +4\n/);
    const ran = await counts(at);
    expect(only(ran)).toEqual(only(dry));
    for (const [cls, c] of Object.entries(ran)) {
      if (c.count === 0 || cls.endsWith('Files')) continue;
      // Never more than batchSize rows of the class's own table per transaction.
      if (['orders', 'transmits', 'cards'].includes(cls)) expect(c.count / c.batches, cls).toBeLessThanOrEqual(RETENTION.batchSize);
    }
    expect(ran.orders!.batches).toBe(2);
    for (const key of old) expect(await outcome(key)).toBe(404);
    expect(await outcome(young)).toBe(200);
    expect(await outcome(open)).toBe(200);
    expect(Object.values(only(await counts(at, '--dry-run'))).every((n) => n === 0)).toBe(true);
  });

  it('the cards an open order needs stay; a deleted token is unknown to the API', async () => {
    // The open order's card still charges: a new order on its token is accepted.
    const again = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4000000000000077'), { mit: true, top: { expiryDateUtc: new Date(t0 + 400 * DAY).toISOString() } }));
    expect(again.statusCode, again.body).toBe(200);
    const gone = await f.post('/v1/evaluate', evaluateBody(unused, {}));
    expect(gone.json()).toMatchObject({ statusCode: 'ERR_VAULT_TOKEN_UNKNOWN' });
    const rows = await f.t.tdb.database.db.query.cards.findMany();
    expect(rows.map((r) => r.last4).sort()).toEqual(['0077', '9979']);
  });

  it('a second instance does not purge while one runs, and says so', async () => {
    const config = loadConfig({ configFile, env: { ...env } });
    // Another replica on PostgreSQL has its own connections; on PGlite the other instance is
    // this process (the CLI reaches the daemon through its socket).
    const other: Database = f.t.tdb.url ? await openDatabase({ url: f.t.tdb.url, poolSize: 2, log: silentLog }) : f.t.tdb.database;
    try {
      // Something to purge: another hard decline, 300 days back from the run.
      clock.set(t0 + 200 * DAY);
      for (let i = 0; i < 3; i++) await evaluate('4000000000000002', { tx: { responseCode: '41', responseCodeSource: 'iso8583' } });
      const at = t0 + 500 * DAY;
      clock.set(at);
      const seen: Array<{ status: number; stderr: string }> = [];
      const first = await runPurge({ ...purgeDeps({ config, log: silentLog, database: f.t.tdb.database }, clock) }, {
        dryRun: false,
        onBatch: async (cls) => {
          if (cls !== 'orders' || seen.length > 0) return;
          seen.push(await runCli(['purge', '--config', configFile], env, other, undefined, clock));
        },
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.status).toBe(1);
      expect(seen[0]!.stderr).toContain('Another instance is running the purge');
      expect(first!.classes.orders.count).toBe(4);
      // Once it has finished, the lock is free again.
      expect((await purge(at)).status).toBe(0);
    } finally {
      if (other !== f.t.tdb.database) await other.close();
    }
  });
});
