// Batch intake end to end: a generated file of N entries (default 1,000,000) ingested by a
// child process the way the daemon does it, on PostgreSQL (TEST_DATABASE_URL or DATABASE_URL)
// and on PGlite. Beside it, from the same run and the same entries: whole-file JSON.parse
// (the parse limit) and the same rows stored bare (the storage limit): one COPY on PostgreSQL,
// multi-row INSERTs on PGlite.
// `npm run bench -- intake [--entries N] [--db postgres|pglite]`
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { writeBatch, entry } from '../../samples/generate-batch.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTokenService } from '../../src/auth/tokens.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { createVault } from '../../src/vault/service.ts';
import { insertOrders, orderRecord } from '../../src/db/queries/insert-orders.ts';
import { copyLines, COPY_ORDERS } from '../../src/db/queries/copy-orders.ts';
import postgres from 'postgres';
import { checkEntry, orderRow } from '../../src/intake/entries.ts';
import { createServerDatabase } from '../helpers/db.ts';
import { key32 } from '../helpers/keys.ts';
import { measure, report, type Rate } from './lib.ts';
import type { WorkerInput } from './intake-worker.ts';

const { values } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== 'intake'), options: { entries: { type: 'string', default: '1000000' }, db: { type: 'string' }, 'cpu-prof-dir': { type: 'string' }, 'node-flags': { type: 'string' } }, strict: false });
const N = Number(values.entries);
const SAMPLE = Math.min(N, 100_000);
const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
const kinds = values.db ? [values.db as string] : serverUrl ? ['postgres', 'pglite'] : ['pglite'];
const log = createLogger({ level: 'warn' });
// `--cpu-prof-dir DIR` profiles the ingesting process (open the .cpuprofile in Chrome DevTools).
const workerFlags = typeof values['cpu-prof-dir'] === 'string' ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof-dir']] : [];
// The ingesting process runs with the daemon's own Node flags (those of `npm start`), unless
// `--node-flags "..."` says otherwise.
const startScript = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const daemonFlags = typeof values['node-flags'] === 'string' ? values['node-flags'].split(' ').filter(Boolean) : startScript.split(' ').filter((a) => a.startsWith('--'));
workerFlags.push(...daemonFlags);
const keys = { signingKey: key32(), vaultKey: key32(), fingerprintKey: key32() };

async function setup(kind: string, root: string) {
  const server = kind === 'postgres' ? await createServerDatabase() : undefined;
  const pgliteDir = kind === 'pglite' ? join(root, 'db') : undefined;
  const database = await openDatabase({ url: server?.url ?? '', pgliteDir, poolSize: 4, log });
  await database.migrate();
  const db = database.db;
  const ring = keyRingFrom({ k: keys.vaultKey }, 'k');
  const merchant = await createMerchantService({ db, vault: ring, mode: 'production' }).add({ name: 'Bench' });
  const merchantId = (await createMerchantService({ db, vault: ring, mode: 'production' }).byMid(merchant.mid)).id;
  const vault = createVault({ db, ring, fingerprintKey: keys.fingerprintKey, mode: 'production' });
  const cardTokens: string[] = [];
  for (const number of ['4111111111111111', '5555555555554444', '4012888888881881', '378282246310005']) {
    cardTokens.push((await vault.tokenize(merchantId, { number, month: '12', year: '2030', firstName: 'Bench', lastName: 'Payer' } as never)).card.token);
  }
  const tokens = createTokenService({ signingKeys: { k: keys.signingKey }, activeSigningKeyId: 'k', issuer: 'rescued', lifetimeSeconds: 3600, isClientActive: async () => true });
  const { token } = await tokens.issue({ merchantId, mid: merchant.mid, clientId: merchant.clientId });
  return { server, pgliteDir, database, merchantId, mid: merchant.mid, siteId: merchant.siteId, cardTokens, accessToken: token };
}

async function storageBaseline(database: Database, serverUrl: string | undefined, merchantId: string, mid: string, cardTokens: string[]): Promise<Rate> {
  const batchId = randomUUID();
  const ctx = { merchantId, batchId, mode: 'production' as const, defaultExpiryDateUtc: new Date(Date.now() + 86_400_000 * 30).toISOString(), now: new Date() };
  const rows: ReturnType<typeof orderRow>[] = [];
  for (let i = 0; i < SAMPLE; i++) {
    const e = entry(i, { entries: SAMPLE, mid, authorizationToken: '', cardTokens, runId: 'base' });
    const checked = checkEntry(e, i + 1, ctx);
    if (checked.ok) rows.push(orderRow(checked.entry, cardTokens[0]!, ctx));
  }
  if (serverUrl) return bareCopy(serverUrl, rows);
  let rate!: Rate;
  await database.db
    .transaction(async (tx) => {
      rate = await measure('bare multi-row INSERT of the same rows (storage limit)', rows.length, async () => {
        for (let i = 0; i < rows.length; i += 500) await insertOrders(tx, rows.slice(i, i + 500));
      });
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  return rate;
}

/** One COPY of all the rows in a transaction that is rolled back: no savepoints, no checks. */
async function bareCopy(url: string, rows: ReturnType<typeof orderRow>[]): Promise<Rate> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let rate!: Rate;
  await sql
    .begin(async (tx) => {
      rate = await measure('bare COPY of the same rows (storage limit)', rows.length, async () => {
        const stream = await tx.unsafe(COPY_ORDERS).writable();
        for (let i = 0; i < rows.length; i += 500) {
          if (!stream.write(copyLines(rows.slice(i, i + 500).map(orderRecord)))) await once(stream, 'drain');
        }
        stream.end();
        await once(stream, 'finish');
      });
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  await sql.end();
  return rate;
}

function parseBaseline(mid: string, cardTokens: string[]): Rate {
  const parts: string[] = [];
  for (let i = 0; i < SAMPLE; i++) parts.push(JSON.stringify(entry(i, { entries: SAMPLE, mid, authorizationToken: '', cardTokens })));
  const text = `{"mid":"${mid}","requests":[${parts.join(',')}]}`;
  const t0 = performance.now();
  const parsed = JSON.parse(text) as { requests: unknown[] };
  const seconds = (performance.now() - t0) / 1000;
  return { label: 'whole-file JSON.parse (parse limit)', count: parsed.requests.length, seconds, perSecond: parsed.requests.length / seconds };
}

async function benchOn(kind: string, root: string): Promise<void> {
  for (const d of ['inbound', 'outbound', 'archive']) mkdirSync(join(root, d));
  const s = await setup(kind, root);
  const path = join(root, 'inbound', 'bench.json');
  const out = createWriteStream(path);
  await writeBatch(out, { entries: N, mid: s.mid, siteId: s.siteId, authorizationToken: `Bearer ${s.accessToken}`, cardTokens: s.cardTokens, runId: randomUUID().slice(0, 8) });
  out.end();
  await once(out, 'finish');
  const bytes = statSync(path).size;
  console.log(`intake on ${kind}: ${N.toLocaleString('en-US')} entries, ${(bytes / 1e9).toFixed(2)} GB (${Math.round(bytes / N)} B/entry), Node ${process.version} ${daemonFlags.join(' ')}`);
  const parse = parseBaseline(s.mid, s.cardTokens);
  const storage = await storageBaseline(s.database, s.server?.url, s.merchantId, s.mid, s.cardTokens);
  await s.database.close();
  const input: WorkerInput = { dbUrl: s.server?.url ?? '', pgliteDir: s.pgliteDir, ...keys, file: { merchantId: s.merchantId, mid: s.mid, path, name: 'bench.json', outboundDir: join(root, 'outbound') }, archiveDir: join(root, 'archive') };
  // The daemon's compile cache (src/main.ts), in its thread and its intake worker.
  const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache') };
  const res = spawnSync(process.execPath, [...workerFlags, join(import.meta.dirname, 'intake-worker.ts'), JSON.stringify(input)], { encoding: 'utf8', maxBuffer: 1 << 20, env });
  if (res.status !== 0) throw new Error(`worker failed: ${res.stderr}`);
  const w = JSON.parse(res.stdout) as { status: string; counts: { accepted: number }; seconds: number; firstCommit?: number; peakRssMiB: number; memory: { rssBeforeMiB: number; rssMiB: number; mainHeapMiB: number; externalMiB: number; arrayBuffersMiB: number }; cpu: { user: number; system: number } };
  // CPU time per entry: steadier than the rate on a shared machine, and on two cores the
  // ingesting process's CPU is what sets the rate (PostgreSQL runs on the other core).
  console.log(`  ingest CPU: ${((w.cpu.user + w.cpu.system) / 1e6).toFixed(2)} s (user ${(w.cpu.user / 1e6).toFixed(2)} s), ${((w.cpu.user + w.cpu.system) / w.counts.accepted).toFixed(1)} µs per entry`);
  // The staged ingest (src/intake/staged.ts): the whole-file check, then the first transaction.
  if (w.firstCommit !== undefined) console.log(`  first orders committed (due) at ${w.firstCommit.toFixed(2)} s of ${w.seconds.toFixed(2)} s`);
  const ours: Rate = { label: 'rescued intake, end to end', count: w.counts.accepted, seconds: w.seconds, perSecond: w.counts.accepted / w.seconds };
  report(ours, parse);
  const ratio = ours.perSecond / storage.perSecond;
  console.log(`  vs storage limit: ${storage.label}: ${Math.round(storage.perSecond).toLocaleString('en-US')}/s → ratio ${ratio.toFixed(2)}x`);
  console.log(`  ingest status ${w.status}; peak RSS of the ingesting process: ${w.peakRssMiB} MiB${kind === 'postgres' ? ` (target < 256 MiB: ${w.peakRssMiB < 256 ? 'met' : 'NOT met'}); target ≥ 0.7x of bare COPY: ${ratio >= 0.7 ? 'met' : 'NOT met'}` : ' (PGlite runs inside this process)'}`);
  const m = w.memory;
  console.log(`  memory at the highest sampled RSS (${m.rssMiB} MiB; ${m.rssBeforeMiB} MiB before the ingest): daemon thread's heap ${m.mainHeapMiB} MiB, outside V8's heaps ${m.externalMiB} MiB (array buffers ${m.arrayBuffersMiB}), the rest (intake worker's heap, code, native) ${m.rssMiB - m.mainHeapMiB - m.externalMiB} MiB`);
  await s.server?.drop();
}

for (const kind of kinds) {
  // The generated file is as large as the run (1.86 GB at 1,000,000 entries): removed, pass or fail.
  const root = mkdtempSync(join(tmpdir(), `rescued-bench-intake-${kind}-`));
  try {
    await benchOn(kind, root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
