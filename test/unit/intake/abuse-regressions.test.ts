// Batch files the abuse bench (npm run bench -- abuse) found wrongly answered: text that is
// not UTF-8 was stored altered (U+FFFD), a top-level "__proto__" key supplied missing header
// fields, and a corrupt gzip was retried as a storage failure instead of refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { IntakeLimitError } from '../../../src/intake/limits.ts';
import { fileChunks } from '../../../src/intake/prescan.ts';
import { BatchScanner, BatchSyntaxError } from '../../../src/intake/scanner.ts';

function scanError(bytes: Buffer): unknown {
  const scanner = new BatchScanner();
  try {
    scanner.push(bytes);
    scanner.end();
  } catch (err) {
    return err;
  }
  return undefined;
}

const FILE = '{"mid":"m-1","authorizationToken":"Bearer abc","requests":[{"orderId":"ORD-@"}]}';
const withBytes = (bytes: number[]) => Buffer.concat([Buffer.from(FILE.slice(0, FILE.indexOf('@'))), Buffer.from(bytes), Buffer.from(FILE.slice(FILE.indexOf('@') + 1))]);

describe('batch scanner: abuse', () => {
  it.each([
    ['0xFF', [0xff]],
    ['Latin-1 é', [0xe9, 0x41]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a lone continuation byte', [0x80]],
  ])('refuses an entry holding %s (not UTF-8) as a syntax error', (_name, bytes) => {
    const err = scanError(withBytes(bytes));
    expect(err).toBeInstanceOf(BatchSyntaxError);
    expect((err as Error).message).toContain('not UTF-8');
  });

  it('refuses bytes that are not UTF-8 in a header value too, and takes real UTF-8', () => {
    expect(scanError(Buffer.from([...Buffer.from('{"mid":"m'), 0xff, ...Buffer.from('","requests":[]}')]))).toBeInstanceOf(BatchSyntaxError);
    expect(scanError(withBytes([...Buffer.from('é€😀')]))).toBeUndefined();
  });

  it('refuses a top-level "__proto__" key, however it is spelt', () => {
    for (const key of ['__proto__', '\\u005f\\u005fproto\\u005f\\u005f']) {
      const err = scanError(Buffer.from(`{"${key}":{"mid":"m-1"},"authorizationToken":"Bearer abc","requests":[]}`));
      expect(err, key).toBeInstanceOf(BatchSyntaxError);
      expect((err as Error).message).toContain('"__proto__" is not allowed');
    }
  });
});

describe('fileChunks: a .json.gz that is not gzip', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-gzip-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['not gzip at all', Buffer.from(FILE)],
    ['cut in half', gzipSync(Buffer.from(FILE.repeat(50))).subarray(0, 60)],
  ])('is refused as ERR_INTAKE_SYNTAX when %s', async (name, bytes) => {
    const path = join(dir, `${name.replace(/ /g, '-')}.json.gz`);
    writeFileSync(path, bytes);
    const read = async () => {
      for await (const chunk of fileChunks(path, true)) void chunk;
    };
    const err = await read().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(IntakeLimitError);
    expect(err).toMatchObject({ code: 'ERR_INTAKE_SYNTAX' });
  });
});
