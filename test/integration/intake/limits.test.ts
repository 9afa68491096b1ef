// Hostile batch files meet bounds while they are read: a gzip bomb stops being unpacked the
// moment it crosses maxUnpackedBytes or maxExpansionRatio, an entry that never closes stops
// at maxEntryBytes, deep nesting at maxDepth, a huge key at maxKeyBytes. Each file is rejected
// whole with an ack naming the bound, and nothing of it is kept.
import { beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { count } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { orders } from '../../../src/db/schema.ts';
import { DEFAULT_LIMITS, type IntakeLimits } from '../../../src/intake/limits.ts';

const LIMITS: IntakeLimits = { ...DEFAULT_LIMITS, maxUnpackedBytes: 64 * 1024 * 1024, maxExpansionRatio: 200, maxEntryBytes: 64 * 1024, maxKeyBytes: 256, maxDepth: 16 };

/** A small .json.gz that unpacks to `bytes` of `fill` after `prefix`. */
async function bomb(path: string, bytes: number, prefix: string, fill: number): Promise<void> {
  const block = Buffer.alloc(1 << 20, fill);
  let left = bytes;
  const source = Readable.from((function* () {
    yield Buffer.from(prefix);
    while (left > 0) {
      left -= block.length;
      yield block;
    }
  })());
  await pipeline(source, createGzip({ level: 9 }), createWriteStream(path));
}

describe.each(DB_KINDS)('bounds of a batch file on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  let f: IntakeFixture;
  beforeAll(() => {
    f = fixture();
    f.deps.limits = LIMITS;
  });

  async function rejected(file: ReturnType<IntakeFixture['drop']>, code: string) {
    const before = (await f.tdb.database.db.select({ n: count() }).from(orders))[0]!.n;
    const res = await ingestFile(f.deps, file);
    expect(res).toMatchObject({ status: 'rejected', input: 'deleted', error: { code } });
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8'));
    expect(ack.error.code).toBe(code);
    expect(ack.error.message).toMatch(/intake\.max/);
    expect(existsSync(file.path)).toBe(false);
    expect((await f.tdb.database.db.select({ n: count() }).from(orders))[0]!.n).toBe(before);
    return ack;
  }

  it('a gzip bomb (a few hundred KB unpacking to 256 MiB of blanks) stops at the expansion ratio', async () => {
    const file = f.drop('bomb.json.gz', '');
    await bomb(file.path, 256 * 1024 ** 2, '{"requests":[', 0x20);
    const ack = await rejected(file, 'ERR_INTAKE_TOO_LARGE');
    expect(ack.error.message).toMatch(/maxExpansionRatio/);
  });

  it('a gzip bomb whose one entry never closes stops at maxEntryBytes, never held whole', async () => {
    const file = f.drop('open-bomb.json.gz', '');
    await bomb(file.path, 256 * 1024 ** 2, '{"mid":"00000000-0000-4000-8000-000000000000","requests":[{"orderId":"', 0x41);
    const rssBefore = process.memoryUsage().rss;
    await rejected(file, 'ERR_INTAKE_ENTRY_TOO_LARGE');
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('a plain file past maxUnpackedBytes stops there', async () => {
    f.deps.limits = { ...LIMITS, maxUnpackedBytes: 64 * 1024 };
    try {
      await rejected(f.drop('big.json', `{"requests":[${'"pad",'.repeat(20_000)}"x"]}`), 'ERR_INTAKE_TOO_LARGE');
    } finally {
      f.deps.limits = LIMITS;
    }
  });

  it('an entry that never closes stops at maxEntryBytes', async () => {
    await rejected(f.drop('open.json', `{"requests":[{"orderId":"${'A'.repeat(200_000)}`), 'ERR_INTAKE_ENTRY_TOO_LARGE');
  });

  it('deep nesting stops at maxDepth, a huge key at maxKeyBytes', async () => {
    await rejected(f.drop('deep.json', `{"requests":[${'['.repeat(10_000)}`), 'ERR_INTAKE_TOO_DEEP');
    await rejected(f.drop('key.json', `{"${'k'.repeat(10_000)}":1,"requests":[]}`), 'ERR_INTAKE_ENTRY_TOO_LARGE');
  });

  it('a normal file is unaffected by the bounds', async () => {
    const res = await ingestFile(f.deps, f.drop('valid.json', f.variant('valid.json', 'bounded')));
    expect(res).toMatchObject({ status: 'accepted', counts: { accepted: 3 } });
  });
});
