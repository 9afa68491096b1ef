// The progress of a file being ingested, seen by the in-daemon readers on both databases
// before its commit: `rescued batches list|show` run in-process (as through the daemon's CLI
// socket), the functions behind GET /v1/batches[/{id}] (merchant-scoped) and the console's
// live poll. The ingest is held mid-way by its card resolver, inside the file's transaction:
// on PGlite that transaction holds the only connection, so a reader that issued a statement
// would wait for a commit that waits for the test — these reads finishing is the proof that
// they touch no connection. Then the stored batch replaces the progress.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS } from '../../helpers/db.ts';
import { intakeFixture, tokenPassThrough, type IntakeFixture } from '../../helpers/intake.ts';
import { runCli } from '../../helpers/cli.ts';
import { createIngestQueue } from '../../../src/intake/queue.ts';
import { progressBoard } from '../../../src/intake/progress-board.ts';
import type { CardResolver } from '../../../src/intake/types.ts';
import { batchDetail, batchPage } from '../../../src/orders/batch-view.ts';
import { listProgress } from '../../../src/db/queries/list-batches.ts';
import { liveAnswer } from '../../../src/http/console/live.ts';
import type { ConsoleDeps } from '../../../src/http/console/deps.ts';
import { systemClock } from '../../../src/clock.ts';
import { writeBatch } from '../../../samples/generate-batch.ts';

/** A resolver that stops before chunk `n` (1-based) until `open(n)`; `reached(n)` resolves when it got there. */
function gatedResolver(stops: number[]) {
  const gates = new Map(stops.map((n) => [n, Promise.withResolvers<void>()]));
  const arrivals = new Map(stops.map((n) => [n, Promise.withResolvers<void>()]));
  let calls = 0;
  const cards: CardResolver = {
    async resolve(tx, m, methods) {
      const n = ++calls;
      arrivals.get(n)?.resolve();
      await gates.get(n)?.promise;
      return tokenPassThrough.resolve(tx, m, methods);
    },
  };
  return { cards, reached: (n: number) => arrivals.get(n)!.promise, open: (n: number) => gates.get(n)!.resolve() };
}

describe.each(DB_KINDS)('progress of a file being ingested, read in-process on %s', (kind) => {
  let f: IntakeFixture;
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-progress-live-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  beforeAll(async () => {
    f = await intakeFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const db = () => f.tdb.database.db;
  const cli = async (...args: string[]) => {
    const res = await runCli(args, env, f.tdb.database);
    expect(res.status, res.stderr).toBe(0);
    return res.stdout;
  };
  const consoleDeps = () => ({ db: db(), clock: systemClock }) as unknown as ConsoleDeps;

  async function generated(name: string, entries: number): Promise<string> {
    const path = join(f.root, 'inbound', name);
    const out = createWriteStream(path);
    await writeBatch(out, { entries, mid: f.merchant.mid, siteId: f.merchant.siteId, authorizationToken: `Bearer ${f.accessToken}`, cardTokens: ['tok_test_card'], runId: `${kind}-${name}` });
    out.end();
    await once(out, 'finish');
    return path;
  }

  /** The daemon's intake queue: on PGlite it marks the connection held for the file's ingest. */
  function queueWith(cards: CardResolver) {
    const deps = { ...f.deps, chunkSize: 100, cards, progressBesideTransaction: kind === 'postgres' };
    return createIngestQueue({ deps, policy: { maxTries: 1, retryBaseMs: 10, retryMaxMs: 10 }, quarantineDir: join(f.root, 'quarantine'), outboundFor: async () => join(f.root, 'outbound'), log: f.deps.log });
  }
  const ready = async (name: string, entries: number) => ({ merchantId: f.merchant.merchantId, mid: f.merchant.mid, username: 'u', path: await generated(name, entries), name, size: 0 });

  it('shows the file with moving counts before its commit, from memory; then its stored batch', async () => {
    // A stored batch, and the questions a watching operator asks before the big file comes.
    const before = await ready('before.json', 20);
    await queueWith(tokenPassThrough).onFileReady(before);
    expect((await cli('batches', 'list')).split('\n')[0]).toContain('before.json  accepted  entries 20');
    await batchPage(db(), f.merchant.merchantId, 50, undefined);
    const liveBefore = await liveAnswer(consoleDeps(), {});

    const gate = gatedResolver([3, 4]);
    const name = 'watched.json';
    const running = queueWith(gate.cards).onFileReady(await ready(name, 350));

    await gate.reached(3);
    const page = await batchPage(db(), f.merchant.merchantId, 50, undefined);
    expect(page.batches.map((b) => [b.fileName, b.status])).toEqual([[name, 'ingesting'], ['before.json', 'accepted']]);
    expect(page.batches[0]).toMatchObject({ mid: f.merchant.mid, entries: 350, accepted: 200, rejected: 0, progress: { decided: 200, percent: 57 } });
    expect(page.held === null).toBe(kind === 'postgres');
    // Another merchant's listing does not show it.
    expect((await batchPage(db(), '00000000-0000-4000-8000-000000000001', 50, undefined)).batches.map((b) => b.fileName)).not.toContain(name);
    expect(await cli('batches', 'list')).toContain(`${name}  ingesting 57% (200 of 350 entries)`);
    const live = await liveAnswer(consoleDeps(), {});
    expect(live.batchesInProgress[0]).toMatchObject({ fileName: name, phase: 'ingesting', accepted: 200, entries: 350 });
    expect(live.queue).toEqual(liveBefore.queue);

    gate.open(3);
    await gate.reached(4);
    expect(await batchDetail(db(), name, f.merchant.merchantId)).toMatchObject({ status: 'ingesting', accepted: 300, orders: null, progress: { decided: 300 } });
    expect(await cli('batches', 'show', name)).toContain('progress:  300 of 350 entries (85%)');
    if (kind === 'pglite') {
      // A question not asked before the ingest: the file alone, and a cursor to every stored batch.
      const fresh = await batchPage(db(), f.merchant.merchantId, 7, undefined);
      expect(fresh).toMatchObject({ batches: [{ fileName: name, accepted: 300 }], held: { asOf: null } });
      expect(fresh.nextCursor).not.toBeNull();
    } else {
      // Another process reads the batch_progress row written beside the transaction.
      expect((await listProgress(db(), f.merchant.merchantId)).map((p) => [p.fileName, p.entryCount])).toEqual([[name, 350]]);
    }

    gate.open(4);
    await running;
    expect(progressBoard(db()).files()).toEqual([]);
    const after = await batchPage(db(), f.merchant.merchantId, 50, undefined);
    expect(after.batches.map((b) => [b.fileName, b.status, b.accepted, b.progress])).toEqual([[name, 'accepted', 350, null], ['before.json', 'accepted', 20, null]]);
    expect(after.held).toBeNull();
    expect((await cli('batches', 'list')).split('\n')[0]).toContain(`${name}  accepted  entries 350`);
    expect((await liveAnswer(consoleDeps(), {})).batchesInProgress.find((b) => b.fileName === name)).toMatchObject({ phase: 'rescuing', accepted: 350 });
    if (kind === 'postgres') expect(await listProgress(db(), f.merchant.merchantId)).toEqual([]);
  });
});
