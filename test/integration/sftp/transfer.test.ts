// The SFTP server with the real OpenSSH client: the operations a merchant uses, upload
// completion and the hand-over to intake, on both database kinds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_KINDS } from '../../helpers/db.ts';
import { sftp, startTestSftp, type Login, type TestSftp } from '../../helpers/sftp.ts';
import { waitFor } from '../../helpers/wait.ts';

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each(DB_KINDS)('SFTP transfers on %s', (kind) => {
  let t: TestSftp;
  let login: Login;
  let mid: string;
  let dir: string;
  let inbound: string;

  beforeAll(async () => {
    // The watcher lists inbound/ again every half second: each file here is offered again,
    // and the hand-over's answer to that offer is the moment its hand-overs are counted.
    t = await startTestSftp(kind, { watchRescanMs: 500 });
    ({ login, mid, dir } = await t.merchant('Transfer Shop'));
    inbound = join(t.stage.root, login.username, 'inbound');
  });
  afterAll(async () => t?.close());

  /** Once `path` was handed over and offered again (the other source, or a rescan) and refused: its hand-overs so far are all it gets. */
  const handedOverAndSeenAgain = (path: string) =>
    waitFor(() => t.ready.some((f) => f.path === path) && t.offeredAgain(path).length > 0, { what: `${path} handed over, then offered again and refused` });

  it('put hands the file over exactly once, with its merchant and path', async () => {
    const local = join(dir, 'batch-1.json');
    const body = '{"mid":"x","requests":[]}';
    writeFileSync(local, body);
    const res = await sftp(login, [`put ${local} inbound/`]);
    expect(res.status, res.stderr).toBe(0);
    await handedOverAndSeenAgain(join(inbound, 'batch-1.json'));
    const mine = t.ready.filter((f) => f.name === 'batch-1.json');
    expect(mine).toEqual([{ merchantId: expect.any(String), mid, username: login.username, path: join(inbound, 'batch-1.json'), name: 'batch-1.json', size: body.length }]);
    expect(readFileSync(join(inbound, 'batch-1.json'), 'utf8')).toBe(body);
    expect(readdirSync(inbound).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(t.audit().filter((l) => l.event === 'upload')).toContainEqual(expect.objectContaining({ username: login.username, mid, path: '/inbound/batch-1.json', bytes: body.length, remoteAddress: '127.0.0.1' }));
    expect(t.audit()).toContainEqual(expect.objectContaining({ event: 'login', username: login.username, mid }));
  });

  it('ls, get, mkdir, rename and rm work, and rename does not hand a file over twice', async () => {
    const local = join(dir, 'ops.json');
    writeFileSync(local, '[]');
    const moved = await sftp(login, ['ls', `put ${local} inbound/ops.json`, 'mkdir inbound/sub', 'rename inbound/ops.json inbound/sub/renamed.json']);
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^inbound\s+outbound\s*$/m);
    // The rename offers the file under its new name; the hand-over knows it and says so.
    const renamed = join(inbound, 'sub', 'renamed.json');
    await waitFor(() => t.offeredAgain(renamed).includes('sftp'), { what: 'the renamed file offered and refused' });
    expect(t.ready.filter((f) => f.name === 'ops.json' || f.name === 'renamed.json').map((f) => f.name)).toEqual(['ops.json']);
    const res = await sftp(login, [
      'ls -l inbound/sub',
      `get inbound/sub/renamed.json ${join(dir, 'back.json')}`,
      'rm inbound/sub/renamed.json',
      'rmdir inbound/sub',
      'ls inbound',
    ]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^-rw-r-----\s+1 \S+\s+\S+\s+2 \w{3} [ \d]\d \d\d:\d\d renamed\.json$/m);
    expect(readFileSync(join(dir, 'back.json'), 'utf8')).toBe('[]');
    expect(existsSync(join(inbound, 'sub'))).toBe(false);
    const events = t.audit().map((l) => l.event);
    for (const e of ['mkdir', 'rename', 'download', 'remove', 'rmdir']) expect(events).toContain(e);
  });

  it('a .filepart upload renamed into place is handed over once, under its final name', async () => {
    const local = join(dir, 'big.json.filepart');
    writeFileSync(local, '{"requests":[]}');
    const res = await sftp(login, [`put ${local} inbound/`, 'rename inbound/big.json.filepart inbound/big.json']);
    expect(res.status, res.stderr).toBe(0);
    await handedOverAndSeenAgain(join(inbound, 'big.json'));
    expect(t.ready.filter((f) => f.name.startsWith('big.json')).map((f) => f.name)).toEqual(['big.json']);
  });

  it('a file that is not *.json or *.json.gz is handed over marked unsupported, for intake to answer, with an audit line', async () => {
    const local = join(dir, 'notes.txt');
    writeFileSync(local, 'hello');
    expect((await sftp(login, [`put ${local} inbound/`])).status).toBe(0);
    await waitFor(() => t.audit().some((l) => l.event === 'handed_over' && String(l.path).endsWith('notes.txt') && /to be rejected/.test(String(l.reason))), { what: 'notes.txt handed over to be rejected' });
    expect(t.ready.filter((f) => f.name === 'notes.txt').map((f) => f.unsupported)).toEqual([true]);
    expect(t.ready.filter((f) => f.name !== 'notes.txt').every((f) => !f.unsupported)).toBe(true);
  });

  it('a 32 MB upload with 64 requests in flight arrives byte-identical', async () => {
    const local = join(dir, 'large.json');
    writeFileSync(local, randomBytes(32 * 1024 * 1024));
    const res = await sftp(login, [`put ${local} inbound/`], ['-R', '64']);
    expect(res.status, res.stderr).toBe(0);
    expect(sha256(join(inbound, 'large.json'))).toBe(sha256(local));
    await waitFor(() => t.ready.some((f) => f.name === 'large.json'), { what: 'large.json handed over' });
    expect(t.ready.find((f) => f.name === 'large.json')!.size).toBe(32 * 1024 * 1024);
  });

  it('a download of the large file with 64 reads in flight is byte-identical', async () => {
    const back = join(dir, 'large-back.json');
    const res = await sftp(login, [`get inbound/large.json ${back}`], ['-R', '64']);
    expect(res.status, res.stderr).toBe(0);
    expect(sha256(back)).toBe(sha256(join(inbound, 'large.json')));
    expect(t.audit()).toContainEqual(expect.objectContaining({ event: 'download', path: '/inbound/large.json', bytes: 32 * 1024 * 1024 }));
  });
});
