// Files that reach inbound/ without the SFTP server: copied in by an operator, left there
// by a crash, or still being written. Each complete batch file is handed over once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from '../../../src/config/index.ts';
import { startSftp } from '../../../src/sftp/server.ts';
import type { ReadyFile } from '../../../src/sftp/handover.ts';
import { silentLog, DB_KINDS } from '../../helpers/db.ts';
import { eventually, startTestSftp, tmp, type TestSftp } from '../../helpers/sftp.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DB_KINDS)('inbound watcher on %s', (kind) => {
  let t: TestSftp;
  let inbound: string;
  let mid: string;
  let username: string;

  beforeAll(async () => {
    t = await startTestSftp(kind);
    const m = await t.merchant('Watched Shop');
    mid = m.mid;
    username = m.login.username;
    inbound = (await t.stage.ensureUserDirs(username)).inbound;
  });
  afterAll(async () => t?.close());

  it('hands over a file copied into inbound/ once, and never a dot-file', async () => {
    const src = join(tmp(), 'copied.json');
    writeFileSync(src, '{"requests":[]}');
    copyFileSync(src, join(inbound, 'copied.json'));
    copyFileSync(src, join(inbound, '.hidden.json'));
    await eventually(() => t.ready.some((f) => f.name === 'copied.json'));
    await wait(600);
    expect(t.ready.filter((f) => f.name === 'copied.json')).toEqual([{ merchantId: expect.any(String), mid, username, path: join(inbound, 'copied.json'), name: 'copied.json', size: 15 }]);
    expect(t.ready.some((f) => f.name === '.hidden.json')).toBe(false);
    expect(t.audit()).toContainEqual(expect.objectContaining({ event: 'handed_over', path: join(inbound, 'copied.json'), source: 'watcher' }));
  });

  it('hands over files created in a merchant folder the moment it is made', async () => {
    // chokidar lists a new folder before watching it; a file written in between is only
    // found by the second listing. Twenty fresh folders make the gap likely to be hit.
    const names = Array.from({ length: 20 }, (_, i) => `fresh-${i}`);
    await Promise.all(
      names.map(async (user) => {
        const dir = (await t.stage.ensureUserDirs(user)).inbound;
        writeFileSync(join(dir, `${user}.json`), '{"requests":[]}');
      }),
    );
    const audited = () => new Set(t.audit().filter((l) => l.event === 'file_ignored' && l.reason === 'no SFTP user owns this folder').map((l) => l.path));
    await eventually(() => names.every((user) => audited().has(join(t.stage.root, user, 'inbound', `${user}.json`))));
    expect(audited().size).toBe(20);
  });

  it('waits until a file being written has stopped growing', async () => {
    const path = join(inbound, 'slow.json.gz');
    writeFileSync(path, Buffer.alloc(1000));
    for (let i = 0; i < 4; i++) {
      await wait(80);
      appendFileSync(path, Buffer.alloc(1000));
    }
    await eventually(() => t.ready.some((f) => f.name === 'slow.json.gz'));
    await wait(600);
    expect(t.ready.filter((f) => f.name === 'slow.json.gz').map((f) => f.size)).toEqual([5000]);
  });

  it('hands over, after a restart, the files left in inbound/', async () => {
    await t.stage.stop();
    writeFileSync(join(inbound, 'left-over.json'), '{}');
    const ready: ReadyFile[] = [];
    const config: Config['sftp'] = { ...(Value.Default(ConfigSchema, {}) as Config).sftp, port: 0, rootDir: t.stage.root, watchStabilityMs: 100 };
    const again = await startSftp({ config, dataDir: tmp(), db: t.tdb.database.db, log: silentLog, onFileReady: (f) => void ready.push(f) });
    try {
      // The watcher reports the files in its own order: wait for all three, then make sure
      // none came twice.
      await eventually(() => ready.length >= 3);
      await wait(300);
      expect(ready.map((f) => f.name).sort()).toEqual(['copied.json', 'left-over.json', 'slow.json.gz']);
    } finally {
      await again.stop();
    }
  });
});
