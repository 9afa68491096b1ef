// Per-merchant quotas in inbound/: files, bytes (a sparse write far past the end counts in
// full), folders and folder depth, and the daemon's reserved temp names. OpenSSH's sftp for
// what a merchant would type; ssh2's client for the sparse write OpenSSH cannot send.
// The quota reads no table, so one database kind is enough.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { archiveDir } from '../../../src/config/paths.ts';
import { join } from 'node:path';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sftp, startTestSftp, type Login, type TestSftp } from '../../helpers/sftp.ts';
import { waitFor } from '../../helpers/wait.ts';

/** An ssh2 SFTP session as the merchant; closed by the returned function. */
async function connectSftp(login: Login): Promise<{ sftp: SFTPWrapper; close: () => void }> {
  const client = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve).once('error', reject);
    client.connect({ host: '127.0.0.1', port: login.port, username: login.username, privateKey: readFileSync(login.key) });
  });
  const session = await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((err, s) => (err ? reject(err) : resolve(s))));
  return { sftp: session, close: () => client.end() };
}

const BYTES_REFUSAL = 'quota exceeded: inbound/, outbound/ and the archive of your files hold 100,000 bytes at most; remove acks and results you have read from outbound/';

const call = <T,>(fn: (cb: (err: Error | null | undefined, value?: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));

describe('SFTP quotas per merchant', () => {
  let t: TestSftp;
  // The file size limit is set past 2 GiB so that the sparse write meets the quota itself.
  const limits = { quotaFiles: 4, quotaBytes: 100_000, quotaFolders: 3, maxFolderDepth: 2, maxFileSizeBytes: 2 ** 32 };

  beforeAll(async () => {
    t = await startTestSftp('pglite', { authFailuresPerMinute: 1000, ...limits });
  });
  afterAll(async () => {
    await t?.close();
  });

  const refusal = (login: Login) => t.audit().filter((l) => l.username === login.username && (l.event === 'refused' || l.event === 'upload_failed')).at(-1);
  const inboundOf = (login: Login) => join(t.stage.root, login.username, 'inbound');

  it('refuses the file past quotaFiles with an audit line, and takes files again once intake has room', async () => {
    const { login, dir: keys } = await t.merchant('Many Files Shop');
    const local = join(keys, 'small.json');
    writeFileSync(local, '{}');
    const puts = Array.from({ length: 4 }, (_, i) => `put ${local} inbound/f${i}.json`);
    expect((await sftp(login, puts)).status).toBe(0);
    expect((await sftp(login, [`put ${local} inbound/f4.json`])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ event: 'refused', path: '/inbound/f4.json', reason: 'quota exceeded: inbound/ holds 4 files at most' });
    expect(readdirSync(inboundOf(login)).sort()).toEqual(['f0.json', 'f1.json', 'f2.json', 'f3.json']);
    // Intake takes a file away: there is room again.
    expect((await sftp(login, ['rm inbound/f0.json', `put ${local} inbound/f4.json`])).status).toBe(0);
  });

  it('counts a sparse write at its offset: one byte at 2 GiB is refused, nothing is kept', async () => {
    const { login } = await t.merchant('Sparse Shop');
    const s = await connectSftp(login);
    try {
      const handle = await call<Buffer>((cb) => s.sftp.open('/inbound/sparse.json', 'w', cb));
      const err = await call<void>((cb) => s.sftp.write(handle, Buffer.from('x'), 0, 1, 2 ** 31, cb)).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 4, message: BYTES_REFUSAL });
      // Writes within the quota on the same handle still fail: the upload is void.
      expect(await call<void>((cb) => s.sftp.write(handle, Buffer.from('{}'), 0, 2, 0, cb)).catch((e: unknown) => e)).toMatchObject({ code: 4 });
      expect(await call<void>((cb) => s.sftp.close(handle, cb)).catch((e: unknown) => e)).toMatchObject({ code: 4 });
    } finally {
      s.close();
    }
    expect(refusal(login)).toMatchObject({ event: 'upload_failed', path: '/inbound/sparse.json', bytes: 2 ** 31 + 1 });
    await waitFor(() => readdirSync(inboundOf(login)).length === 0, { what: 'the void upload removed' });
  });

  it('counts the bytes already in inbound/ and those of uploads in flight', async () => {
    const { login, dir: keys } = await t.merchant('Big Files Shop');
    const local = join(keys, 'sixty.json');
    writeFileSync(local, Buffer.alloc(60_000, 0x20));
    expect((await sftp(login, [`put ${local} inbound/a.json`])).status).toBe(0);
    expect((await sftp(login, [`put ${local} inbound/b.json`])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ event: 'upload_failed', path: '/inbound/b.json', reason: BYTES_REFUSAL });
    expect(readdirSync(inboundOf(login))).toEqual(['a.json']);

    // Two uploads open at once share the quota: the second one's write is refused.
    const s = await connectSftp(login);
    try {
      expect((await sftp(login, ['rm inbound/a.json'])).status).toBe(0);
      const one = await call<Buffer>((cb) => s.sftp.open('/inbound/one.json', 'w', cb));
      const two = await call<Buffer>((cb) => s.sftp.open('/inbound/two.json', 'w', cb));
      await call<void>((cb) => s.sftp.write(one, Buffer.alloc(60_000), 0, 60_000, 0, cb));
      expect(await call<void>((cb) => s.sftp.write(two, Buffer.alloc(60_000), 0, 60_000, 0, cb)).catch((e: unknown) => e)).toMatchObject({ code: 4 });
      await call<void>((cb) => s.sftp.close(one, cb));
      expect(await call<void>((cb) => s.sftp.close(two, cb)).catch((e: unknown) => e)).toMatchObject({ code: 4 });
    } finally {
      s.close();
    }
    expect(readdirSync(inboundOf(login))).toEqual(['one.json']);
  });

  it('counts the acks and results in outbound/ and the archived files in the bytes kept', async () => {
    const { login, dir: keys, mid } = await t.merchant('Kept Files Shop');
    const local = join(keys, 'forty.json');
    writeFileSync(local, Buffer.alloc(40_000, 0x20));
    expect((await sftp(login, [`put ${local} inbound/a.json`])).status).toBe(0);
    // Intake's outputs of earlier files, as it leaves them: an ack, and the archived input.
    writeFileSync(join(t.stage.root, login.username, 'outbound', 'old.json.ack.json'), Buffer.alloc(30_000, 0x20));
    const day = join(archiveDir(t.dataDir), mid, '2026-11-01');
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, 'batch-old.json'), Buffer.alloc(20_000, 0x20));
    expect((await sftp(login, [`put ${local} inbound/b.json`])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ event: 'upload_failed', path: '/inbound/b.json', reason: BYTES_REFUSAL });
    // The merchant removes the ack it has read: room again.
    expect((await sftp(login, ['rm outbound/old.json.ack.json', `put ${local} inbound/b.json`])).status).toBe(0);
  });

  it('refuses folders past quotaFolders and past maxFolderDepth, by mkdir and by moving a folder', async () => {
    const { login } = await t.merchant('Deep Folders Shop');
    expect((await sftp(login, ['mkdir inbound/a', 'mkdir inbound/a/b'])).status).toBe(0);
    expect((await sftp(login, ['mkdir inbound/a/b/c'])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ event: 'refused', path: '/inbound/a/b/c', reason: 'quota exceeded: folders nest 2 levels deep at most' });
    expect((await sftp(login, ['mkdir inbound/x'])).status).toBe(0);
    expect((await sftp(login, ['rename inbound/a inbound/x/a'])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ reason: 'quota exceeded: folders nest 2 levels deep at most' });
    expect((await sftp(login, ['mkdir inbound/y'])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ path: '/inbound/y', reason: 'quota exceeded: inbound/ holds 3 folders at most' });
    expect(readdirSync(inboundOf(login)).sort()).toEqual(['a', 'x']);
  });

  it('refuses names with the daemon’s own temp prefix, which listings hide', async () => {
    const { login, dir: keys } = await t.merchant('Hidden Name Shop');
    const local = join(keys, 'x.json');
    writeFileSync(local, '{}');
    const reason = 'names starting with .rescued-upload- are reserved';
    expect((await sftp(login, [`put ${local} inbound/.rescued-upload-0123456789abcdef`])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ event: 'refused', reason });
    expect((await sftp(login, ['mkdir inbound/.rescued-upload-d'])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ path: '/inbound/.rescued-upload-d', reason });
    expect((await sftp(login, [`put ${local} inbound/x.json`, 'rename inbound/x.json inbound/.rescued-upload-x'])).status).not.toBe(0);
    expect(refusal(login)).toMatchObject({ reason });
    expect(readdirSync(inboundOf(login))).toEqual(['x.json']);
  });
});
