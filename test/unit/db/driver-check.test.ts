// The daemon refuses a PostgreSQL connection through an unmended postgres-js (an install that
// skipped its postinstall step) and says how to mend it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertDriverMended } from '../../../src/db/driver-check.ts';

describe('postgres driver check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-driver-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on the installed driver, which the install mended', () => {
    expect(() => assertDriverMended()).not.toThrow();
  });

  it('names the unmended files and the command that mends them', () => {
    for (const d of ['src', 'cjs/src']) {
      mkdirSync(join(dir, d), { recursive: true });
      writeFileSync(join(dir, d, 'index.js'), '/* rescued: mended */');
      writeFileSync(join(dir, d, 'connection.js'), d === 'src' ? 'function nextWrite(fn) {}' : '/* rescued: mended */');
    }
    expect(() => assertDriverMended(dir)).toThrow(/not mended \(src\/connection\.js\).*node \.config\/patch-postgres\.mjs/);
  });
});
