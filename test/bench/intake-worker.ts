// Child process of intake.bench.ts: ingests one file the way the daemon does and reports
// its time, CPU time and peak RSS, so the figures are the intake's own, not the benchmark's.
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTokenService } from '../../src/auth/tokens.ts';
import { isClientActive } from '../../src/db/queries/client-status.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { createVault } from '../../src/vault/service.ts';
import { vaultCardResolver } from '../../src/intake/cards.ts';
import { ingestFile } from '../../src/intake/ingest.ts';
import type { Db } from '../../src/db/client.ts';

export interface WorkerInput {
  dbUrl: string;
  pgliteDir: string | undefined;
  signingKey: string;
  vaultKey: string;
  fingerprintKey: string;
  file: { merchantId: string; mid: string; path: string; name: string; outboundDir: string };
  archiveDir: string;
}

const input = JSON.parse(process.argv[2]!) as WorkerInput;
const log = createLogger({ level: 'warn' });
const database = await openDatabase({ url: input.dbUrl, pgliteDir: input.pgliteDir, poolSize: 4, log });
const db = database.db;
const tokens = createTokenService({ signingKeys: { k: input.signingKey }, activeSigningKeyId: 'k', issuer: 'rescued', lifetimeSeconds: 3600, isClientActive: (merchantId, clientId) => isClientActive(db, merchantId, clientId) });
const ring = keyRingFrom({ k: input.vaultKey }, 'k');
const cards = vaultCardResolver((tx) => createVault({ db: tx as unknown as Db, ring, fingerprintKey: input.fingerprintKey, mode: 'production' }));
// Where the peak is: the daemon thread's own heap and the memory outside V8 heaps (COPY
// buffers, array buffers) at the sample with the highest RSS; the rest is the intake worker's
// heap, code and native allocations. Sampled every 50 ms (the daemon's thread mostly waits).
const MiB = (n: number) => Math.round(n / 1048576);
const before = process.memoryUsage();
let atPeak = before;
const sampling = setInterval(() => {
  const m = process.memoryUsage();
  if (m.rss > atPeak.rss) atPeak = m;
}, 50);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
// A large file's staged ingest commits its first orders after the whole-file check and one transaction.
let firstCommit: number | undefined;
const onChunkCommitted = () => void (firstCommit ??= (performance.now() - t0) / 1000);
const result = await ingestFile({ db, tokens, cards, mode: 'production', log, archiveDir: input.archiveDir, onChunkCommitted }, input.file);
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampling);
await database.close();
const memory = { rssBeforeMiB: MiB(before.rss), rssMiB: MiB(atPeak.rss), mainHeapMiB: MiB(atPeak.heapTotal), externalMiB: MiB(atPeak.external), arrayBuffersMiB: MiB(atPeak.arrayBuffers) };
process.stdout.write(`${JSON.stringify({ status: result.status, counts: result.counts, seconds, firstCommit, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), memory, cpu: process.cpuUsage(cpu0) })}\n`);
