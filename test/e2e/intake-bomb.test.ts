// A decompression bomb dropped in a merchant's inbound/ against the real daemon: the file is
// rejected with an ack naming the bound, and the daemon's memory (VmRSS of the child, sampled
// while it works) stays inside the intake budget. Before the bounds, a 3 MB .json.gz holding
// one never-closing entry took the daemon from 452 MB to 3.59 GB.
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';

const MIB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** About 1 MB on disk, 1 GiB unpacked: one entry whose orderId never ends. */
async function bomb(path: string): Promise<void> {
  const block = Buffer.alloc(MIB, 0x41);
  const source = Readable.from((function* () {
    yield Buffer.from('{"mid":"00000000-0000-4000-8000-000000000000","requests":[{"orderId":"');
    for (let i = 0; i < 1024; i++) yield block;
  })());
  await pipeline(source, createGzip({ level: 9 }), createWriteStream(path));
}

describe.each(DB_KINDS)('a decompression bomb through rescued serve on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-bomb-');
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '100', RESCUED_ENGINE_ENABLED: 'false' };
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  it('is rejected with an ack naming the bound, in bounded memory', async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      env.DATABASE_URL = server.url;
      drop = server.drop;
    }
    const local = join(tempDir('rescued-e2e-bomb-local-'), 'bomb.json.gz');
    await bomb(local);
    const daemon = startDaemon(env);
    const [, username] = await daemon.waitFor(/sftp -P \d+ -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    const pid = daemon.child.pid!;
    const baseline = rssOf(pid);
    const ackPath = join(dataDir, 'sftp', username!, 'outbound', 'bomb.json.gz.ack.json');
    // As an upload would leave it (the SFTP put itself is covered by sftp.test.ts; the
    // folders are made at the merchant's first login).
    for (const folder of ['inbound', 'outbound']) mkdirSync(join(dataDir, 'sftp', username!, folder), { recursive: true });
    copyFileSync(local, join(dataDir, 'sftp', username!, 'inbound', 'bomb.json.gz'));
    let peak = baseline;
    const t0 = Date.now();
    while (!existsSync(ackPath)) {
      peak = Math.max(peak, rssOf(pid));
      if (Date.now() - t0 > 30_000) throw new Error(`no ack after 30 s\n${daemon.stdout().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    peak = Math.max(peak, rssOf(pid));
    const ack = JSON.parse(readFileSync(ackPath, 'utf8'));
    expect(ack).toMatchObject({ status: 'rejected', input: 'deleted', error: { code: 'ERR_INTAKE_ENTRY_TOO_LARGE', message: expect.stringContaining('intake.maxEntryBytes') } });
    // What intake adds while the bomb is read must stay small whatever the file unpacks to
    // (1 GiB here): the whole daemon's baseline is its other stages (and PGlite's WASM heap).
    process.stdout.write(`bomb on ${kind}: daemon RSS ${(baseline / MIB).toFixed(0)} MiB before, ${(peak / MIB).toFixed(0)} MiB at most while reading\n`);
    expect(peak - baseline).toBeLessThan(64 * MIB);
    // On PostgreSQL the whole daemon stays inside the intake budget. On PGlite the embedded
    // database's WASM heap lives in the same process and is most of its RSS before any file.
    if (kind === 'postgres') expect(peak).toBeLessThan(256 * MIB);
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: env.DATABASE_URL, logs: daemonLogs() });
  });
});
