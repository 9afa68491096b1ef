// Files that reach inbound/ without the SFTP server: copied in by an operator, left there
// by a crash, or still being written. Each complete batch file is handed over once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from '../../../src/config/index.ts';
import { startSftp } from '../../../src/sftp/server.ts';
import type { ReadyFile } from '../../../src/sftp/handover.ts';
import { createLogger } from '../../../src/log.ts';
import { DB_KINDS } from '../../helpers/db.ts';
import { startTestSftp, tmp, type TestSftp } from '../../helpers/sftp.ts';
import { waitFor } from '../../helpers/wait.ts';

/** Every inbound/ listed again this often: each file is offered again, and refused if it was handed over. */
const RESCAN_MS = 300;

describe.each(DB_KINDS)('inbound watcher on %s', (kind) => {
  let t: TestSftp;
  let inbound: string;
  let mid: string;
  let username: string;

  beforeAll(async () => {
    t = await startTestSftp(kind, { watchRescanMs: RESCAN_MS });
    const m = await t.merchant('Watched Shop');
    mid = m.mid;
    username = m.login.username;
    inbound = (await t.stage.ensureUserDirs(username)).inbound;
  });
  afterAll(async () => t?.close());

  /** Once `path` was handed over and a later offer of it refused, its hand-overs so far are all it gets. */
  const handedOverAndSeenAgain = (path: string) =>
    waitFor(() => t.ready.some((f) => f.path === path) && t.offeredAgain(path).length > 0, { what: `${path} handed over, then offered again and refused` });

  it('hands over a file copied into inbound/ once, and never a dot-file', async () => {
    const src = join(tmp(), 'copied.json');
    writeFileSync(src, '{"requests":[]}');
    copyFileSync(src, join(inbound, 'copied.json'));
    copyFileSync(src, join(inbound, '.hidden.json'));
    await handedOverAndSeenAgain(join(inbound, 'copied.json'));
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
    await waitFor(() => names.every((user) => audited().has(join(t.stage.root, user, 'inbound', `${user}.json`))), { what: 'the twenty files found' });
    expect(audited().size).toBe(20);
  });

  it('waits until a file being written has stopped growing', async () => {
    const path = join(inbound, 'slow.json.gz');
    writeFileSync(path, Buffer.alloc(500));
    // The scenario: the file grows for longer than the watcher's size polls (100 ms), each
    // step well within the stability time (200 ms). These pauses are the writer's, not a wait.
    for (let i = 0; i < 9; i++) {
      await new Promise((r) => setTimeout(r, 25));
      appendFileSync(path, Buffer.alloc(500));
    }
    // A hand-over while it grew would have come before the one of the whole file.
    await handedOverAndSeenAgain(path);
    expect(t.ready.filter((f) => f.name === 'slow.json.gz').map((f) => f.size)).toEqual([5000]);
  });

  it('hands over, after a restart, the files left in inbound/', async () => {
    await t.stage.stop();
    writeFileSync(join(inbound, 'left-over.json'), '{}');
    const ready: ReadyFile[] = [];
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
    const config: Config['sftp'] = { ...(Value.Default(ConfigSchema, {}) as Config).sftp, port: 0, rootDir: t.stage.root, watchStabilityMs: 100, watchRescanMs: RESCAN_MS };
    const again = await startSftp({ config, dataDir: tmp(), db: t.tdb.database.db, log, onFileReady: (f) => void ready.push(f) });
    try {
      // The watcher reports the files in its own order: each is counted once it was handed
      // over and a later offer of it (a rescan) was refused.
      const names = ['copied.json', 'left-over.json', 'slow.json.gz'];
      const refused = (name: string) => lines.some((l) => l.msg === 'file offered again: not handed over' && l.path === join(inbound, name));
      await waitFor(() => names.every((n) => ready.some((f) => f.name === n) && refused(n)), { what: 'the three files handed over, then offered again and refused' });
      expect(ready.map((f) => f.name).sort()).toEqual(names);
    } finally {
      await again.stop();
    }
  });
});
