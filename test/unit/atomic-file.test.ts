import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/atomic-file.ts';
import { waitFor } from '../helpers/wait.ts';

describe('AtomicFile', () => {
  let dir: string;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rescued-atomic-'));
    uncaught.length = 0;
    process.on('uncaughtException', onUncaught);
  });
  afterEach(() => {
    process.off('uncaughtException', onUncaught);
  });

  it('shows the file under its name only once published, and leaves no temporary file', async () => {
    const f = new AtomicFile(dir, 'a.json');
    await f.write('{"a":');
    await f.end('1}\n');
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^\.a\.json\.[0-9a-f]{12}\.tmp$/)]);
    expect(await f.publish()).toBe(join(dir, 'a.json'));
    expect(readdirSync(dir)).toEqual(['a.json']);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"a":1}\n');
  });

  it('discarded while the file is still being opened, leaves nothing behind', async () => {
    // discard resolves once the stream has closed (its open finished first) and the file is
    // removed: nothing of it can appear later, so the folder is looked at then.
    for (let i = 0; i < 20; i++) await new AtomicFile(dir, `f${i}.json`).discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('discarded while a write is in flight, raises nothing and leaves nothing behind', async () => {
    for (let i = 0; i < 5; i++) {
      const f = new AtomicFile(dir, `f${i}.json`);
      // Opened (the temporary file exists): the next write goes to the disk at once.
      await waitFor(() => existsSync(f.tmpPath), { what: `${f.tmpPath} opened` });
      await f.write('x'.repeat(1000)); // under the stream's buffer limit: nobody waits for it
      await f.discard();
    }
    // discard resolves after the stream's 'close', which comes after any error of the write it cut short.
    expect(uncaught).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports a file that cannot be written to the caller, not as an uncaught error', async () => {
    const f = new AtomicFile(join(dir, 'missing'), 'a.json');
    await expect(f.end('{}')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(f.write('{}')).rejects.toMatchObject({ code: 'ENOENT' });
    await f.discard();
    expect(uncaught).toEqual([]);
  });
});
