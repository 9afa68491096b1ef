// The purge and batch files, on both databases, with files ingested by intake: a batch row
// goes after retention.orderDays once none of its orders is left (a file whose every entry
// was rejected has none), a batch with open orders stays, and the archived input goes after
// retention.archiveDays.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { runCli } from '../../helpers/cli.ts';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture } from '../../helpers/intake.ts';

const DAY = 86_400_000;

describe.each(DB_KINDS)('the purge and batches on %s', (kind) => {
  const fixture = useIntakeFixture(kind);

  it('removes an empty batch after orderDays and the archive after archiveDays; a batch with open orders stays', async () => {
    const f = fixture();
    // The fixture's folder is laid out as a data folder: archive/ is <dataDir>/archive.
    const configFile = join(f.root, 'rescued.json');
    writeFileSync(configFile, JSON.stringify({ retention: { orderDays: 10, archiveDays: 3 } }));
    const env = { RESCUED_DATA_DIR: f.root, ...(f.tdb.url ? { DATABASE_URL: f.tdb.url } : {}) };
    const t0 = Date.now();
    const clock = new ManualClock(t0);
    const cli = (at: number, ...args: string[]) => {
      clock.set(at);
      return runCli(['--config', configFile, ...args], env, f.tdb.database, undefined, clock);
    };
    const purge = async (at: number, ...args: string[]) => {
      const res = await cli(at, 'purge', '--json', ...args);
      expect(res.status, res.stderr).toBe(0);
      const c = JSON.parse(res.stdout).classes as Record<string, { count: number }>;
      return { batches: c.batches!.count, archiveFiles: c.archiveFiles!.count, orders: c.orders!.count };
    };
    const kept = await ingestFile(f.deps, f.drop('kept.json', f.variant('valid.json', 'kept')));
    expect(kept.status).toBe('accepted');
    const rejected = await ingestFile(f.deps, f.drop('bad.json', f.variant('valid.json', 'bad').replaceAll('"currency": "USD"', '"currency": "QQQ"')));
    expect(rejected).toMatchObject({ counts: { accepted: 0 } });
    const archived = readdirSync(join(f.root, 'archive'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    expect(archived).toBeGreaterThan(0);
    const shown = async (id: string) => (await cli(t0, 'batches', 'show', id, '--json')).status;

    expect(await purge(t0 + 2 * DAY)).toEqual({ batches: 0, archiveFiles: 0, orders: 0 });
    expect(await purge(t0 + 5 * DAY, '--dry-run')).toEqual({ batches: 0, archiveFiles: archived, orders: 0 });
    expect(await purge(t0 + 5 * DAY)).toEqual({ batches: 0, archiveFiles: archived, orders: 0 });
    expect(readdirSync(join(f.root, 'archive'))).toEqual([]);
    expect([await shown(kept.batchId!), await shown(rejected.batchId!)]).toEqual([0, 0]);

    const dry = await purge(t0 + 20 * DAY, '--dry-run');
    expect(dry).toEqual({ batches: 1, archiveFiles: 0, orders: 0 });
    expect(await purge(t0 + 20 * DAY)).toEqual(dry);
    // The rejected file's batch is gone (nothing more to remove); the one whose orders are still open stays.
    expect(await purge(t0 + 20 * DAY, '--dry-run')).toEqual({ batches: 0, archiveFiles: 0, orders: 0 });
    expect(await shown(kept.batchId!)).toBe(0);
  });
});
