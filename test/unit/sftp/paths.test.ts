import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOnDisk, normaliseVirtual, realPathOf, sftpRootDir, userDirs } from '../../../src/sftp/paths.ts';
import { Refusal } from '../../../src/sftp/refusal.ts';

describe('chroot paths', () => {
  it.each([
    ['.', '/', 'root', []],
    ['', '/', 'root', []],
    ['/', '/', 'root', []],
    ['inbound', '/inbound', 'inbound', []],
    ['/inbound//a.json', '/inbound/a.json', 'inbound', ['a.json']],
    ['inbound/./sub/../a.json', '/inbound/a.json', 'inbound', ['a.json']],
    ['/inbound/..', '/', 'root', []],
    ['/outbound/x.ack.json', '/outbound/x.ack.json', 'outbound', ['x.ack.json']],
    ['/etc/passwd', '/etc/passwd', 'root', ['etc', 'passwd']],
  ])('%j → %s in %s', (input, path, area, below) => {
    expect(normaliseVirtual(input)).toEqual({ path, area, below });
  });

  it.each(['..', '/..', '../../etc/passwd', '/inbound/../../other/inbound', 'a\0b'])('refuses %j', (input) => {
    expect(() => normaliseVirtual(input)).toThrow(Refusal);
  });

  it('maps into the home folder only', () => {
    expect(realPathOf('/srv/h', normaliseVirtual('/'))).toBe('/srv/h');
    expect(realPathOf('/srv/h', normaliseVirtual('/inbound/a.json'))).toBe('/srv/h/inbound/a.json');
  });

  it('refuses unsafe usernames as folder names', () => {
    expect(userDirs('/r', 'shop-1234abcd')).toEqual({ home: '/r/shop-1234abcd', inbound: '/r/shop-1234abcd/inbound', outbound: '/r/shop-1234abcd/outbound' });
    for (const bad of ['..', '../x', 'a/b', '.host-keys', '', 'A'.repeat(70)]) expect(() => userDirs('/r', bad), bad).toThrow();
  });

  it('defaults the root to <dataDir>/sftp', () => {
    expect(sftpRootDir('/var/lib/rescued', '')).toBe('/var/lib/rescued/sftp');
    expect(sftpRootDir('/var/lib/rescued', '/srv/sftp')).toBe('/srv/sftp');
  });

  it('finds symbolic links on disk, for existing and new paths', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'rescued-paths-')));
    mkdirSync(join(home, 'inbound'));
    writeFileSync(join(home, 'inbound', 'a.json'), '{}');
    symlinkSync('/etc', join(home, 'inbound', 'etc'));
    symlinkSync('/etc/passwd', join(home, 'inbound', 'p.json'));
    await expect(checkOnDisk(join(home, 'inbound', 'a.json'))).resolves.toBe('exists');
    await expect(checkOnDisk(join(home, 'inbound', 'new.json'))).resolves.toBe('missing');
    await expect(checkOnDisk(join(home, 'inbound', 'p.json'))).rejects.toThrow('symbolic links are not followed');
    await expect(checkOnDisk(join(home, 'inbound', 'etc', 'passwd'))).rejects.toThrow('symbolic links are not followed');
    await expect(checkOnDisk(join(home, 'inbound', 'etc', 'new.json'))).rejects.toThrow('symbolic links are not followed');
    await expect(checkOnDisk(join(home, 'inbound', 'nope', 'new.json'))).rejects.toMatchObject({ kind: 'no_such_file' });
  });
});
