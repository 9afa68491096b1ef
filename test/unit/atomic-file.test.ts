import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/atomic-file.ts';

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
    for (let i = 0; i < 20; i++) await new AtomicFile(dir, `f${i}.json`).discard();
    await sleep(20);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('discarded while a write is in flight, raises nothing and leaves nothing behind', async () => {
    for (let i = 0; i < 5; i++) {
      const f = new AtomicFile(dir, `f${i}.json`);
      await sleep(10); // opened: the next write goes to the disk at once
      await f.write('x'.repeat(1000)); // under the stream's buffer limit: nobody waits for it
      await f.discard();
    }
    await sleep(20);
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
