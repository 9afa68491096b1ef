// What an unmodified OpenSSH client negotiates with the SFTP server: AES-GCM (unless the
// operator turned that off), no SHA-1 host key signature, 255 KiB writes through the
// limits@openssh.com extension, and uploads written outside inbound/ until they are complete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS } from '../../helpers/db.ts';
import { sftp, startTestSftp, type Login, type TestSftp } from '../../helpers/sftp.ts';

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each(DB_KINDS)('SFTP fast path on %s', (kind) => {
  let t: TestSftp;
  let login: Login;
  let dir: string;
  let home: string;

  beforeAll(async () => {
    t = await startTestSftp(kind);
    ({ login, dir } = await t.merchant('Fast Shop'));
    home = join(t.stage.root, login.username);
  });
  afterAll(async () => t?.close());

  const logins = () => t.audit().filter((l) => l.event === 'login');

  it('the default client picks AES-GCM, learns the limits and writes 255 KiB requests; the upload arrives whole', async () => {
    const local = join(dir, 'fast.json');
    writeFileSync(local, randomBytes(3 * 1024 * 1024 + 17));
    const res = await sftp(login, [`put ${local} inbound/`, `get inbound/fast.json ${join(dir, 'back.json')}`], ['-vvv']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/kex: client->server cipher: aes128-gcm@openssh\.com/);
    expect(res.stderr).toMatch(/server upload\/download buffer sizes 261120 \/ 261120; using 261120 \/ 261120/);
    expect(sha256(join(home, 'inbound', 'fast.json'))).toBe(sha256(local));
    expect(sha256(join(dir, 'back.json'))).toBe(sha256(local));
    expect(logins().at(-1)).toMatchObject({ username: login.username, cipher: 'aes128-gcm@openssh.com' });
    // The upload was written in the home's uploads folder and moved: nothing is left behind.
    expect(readdirSync(join(home, '.rescued-uploads'))).toEqual([]);
    expect(readdirSync(join(home, 'inbound')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('writes beside the target when the uploads folder is not a plain folder, never through a link', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'rescued-elsewhere-'));
    rmSync(join(home, '.rescued-uploads'), { recursive: true });
    symlinkSync(elsewhere, join(home, '.rescued-uploads'));
    try {
      const local = join(dir, 'linked.json');
      writeFileSync(local, randomBytes(300_000));
      const res = await sftp(login, [`put ${local} inbound/`]);
      expect(res.status, res.stderr).toBe(0);
      expect(sha256(join(home, 'inbound', 'linked.json'))).toBe(sha256(local));
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(readdirSync(join(home, 'inbound')).filter((n) => n.startsWith('.'))).toEqual([]);
    } finally {
      rmSync(join(home, '.rescued-uploads'));
      mkdirSync(join(home, '.rescued-uploads'));
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses an OpenSSH client limited to chacha20-poly1305, and SHA-1 host key signatures', async () => {
    const chacha = await sftp(login, ['ls'], ['-v', '-c', 'chacha20-poly1305@openssh.com']);
    expect(chacha.status).not.toBe(0);
    expect(chacha.stderr).toMatch(/no matching cipher found/);
    const sha1 = await sftp(login, ['ls'], ['-v', '-o', 'HostKeyAlgorithms=ssh-rsa']);
    expect(sha1.status).not.toBe(0);
    expect(sha1.stderr).toMatch(/no matching host key type found/);
  });

  it('with preferAesGcm off, the same client gets every safe cipher and picks chacha20-poly1305', async () => {
    const other = await startTestSftp(kind, { preferAesGcm: false });
    try {
      const { login: theirs } = await other.merchant('Chacha Shop');
      const res = await sftp(theirs, ['ls'], ['-v']);
      expect(res.status, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/kex: client->server cipher: chacha20-poly1305@openssh\.com/);
      expect(other.audit().filter((l) => l.event === 'login').at(-1)).toMatchObject({ cipher: 'chacha20-poly1305@openssh.com' });
    } finally {
      await other.close();
    }
  });
});
