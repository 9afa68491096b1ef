// The listing that backs up chokidar: which files it offers, and that it waits for them to
// settle. The gap it closes (a file created in a new folder before chokidar watches it) is
// exercised against the real watcher in test/integration/sftp/watcher.test.ts.
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listInbound } from '../../../src/sftp/watcher.ts';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'rescued-list-'));
  for (const dir of ['alice/inbound/sub', 'alice/outbound', 'alice/.hidden', 'bob/inbound']) mkdirSync(join(root, dir), { recursive: true });
  for (const file of ['alice/inbound/a.json', 'alice/inbound/sub/b.json.gz', 'alice/inbound/.c.json', 'alice/outbound/r.json', 'alice/.hidden/d.json', 'alice/top.json', 'bob/inbound/e.json', 'stray.json']) {
    writeFileSync(join(root, file), '{}');
  }
  return root;
}

describe('listing inbound folders', () => {
  it('offers every settled file under <user>/inbound/, and nothing else', async () => {
    const root = tree();
    const offered: string[] = [];
    await listInbound(root, root, 0, (p) => offered.push(p));
    expect(offered.sort()).toEqual(['alice/inbound/a.json', 'alice/inbound/sub/b.json.gz', 'bob/inbound/e.json'].map((f) => join(root, f)));
  });

  it('lists one folder when given one', async () => {
    const root = tree();
    const offered: string[] = [];
    await listInbound(root, join(root, 'bob', 'inbound'), 0, (p) => offered.push(p));
    expect(offered).toEqual([join(root, 'bob/inbound/e.json')]);
  });

  it('leaves out a file that grows during the stability wait', async () => {
    const root = tree();
    const growing = join(root, 'bob/inbound/growing.json');
    writeFileSync(growing, '{');
    const offered: string[] = [];
    // The scenario: a writer appends every 10 ms for as long as the listing runs. Whenever the
    // listing takes its first look, its stability wait (150 ms) outlasts the next append, so
    // the file has grown between its two looks — however slowly the machine runs.
    const writer = setInterval(() => appendFileSync(growing, ' '), 10);
    try {
      await listInbound(root, join(root, 'bob'), 150, (p) => offered.push(p));
    } finally {
      clearInterval(writer);
    }
    expect(offered).toEqual([join(root, 'bob/inbound/e.json')]);
  });

  it('offers nothing for a folder that has gone', async () => {
    const offered: string[] = [];
    await listInbound('/nonexistent-root', '/nonexistent-root/u/inbound', 0, (p) => offered.push(p));
    expect(offered).toEqual([]);
  });
});
