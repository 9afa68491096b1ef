import { describe, expect, it } from 'vitest';
import { addressInRanges, normaliseAddress } from '../../../src/sftp/addresses.ts';
import { classifyName } from '../../../src/sftp/names.ts';
import { createAuthThrottle, createCounter } from '../../../src/sftp/limits.ts';
import { createFileLocks } from '../../../src/sftp/locks.ts';
import { ignoredByWatcher } from '../../../src/sftp/watcher.ts';
import { longname } from '../../../src/sftp/attrs.ts';
import type { Stats } from 'node:fs';

describe('batch file names', () => {
  it.each([
    ['rebills.json', 'batch'],
    ['REBILLS.JSON', 'batch'],
    ['rebills.json.gz', 'batch'],
    ['rebills.json.filepart', 'pending'],
    ['rebills.json.part', 'pending'],
    ['rebills.json.tmp', 'pending'],
    ['.rebills.json', 'pending'],
    ['.rescued-upload-0011', 'pending'],
    ['notes.txt', 'other'],
    ['rebills.gz', 'other'],
  ])('%s is %s', (name, kind) => expect(classifyName(name)).toBe(kind));
});

describe('source addresses', () => {
  it('matches IPv4, IPv6 and IPv4-mapped addresses against normalised ranges', () => {
    expect(addressInRanges('127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(addressInRanges('127.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(addressInRanges('10.20.30.40', ['10.0.0.0/8'])).toBe(true);
    expect(addressInRanges(normaliseAddress('::ffff:10.1.2.3'), ['10.0.0.0/8'])).toBe(true);
    expect(addressInRanges('2001:db8::7', ['2001:db8::/32'])).toBe(true);
    expect(addressInRanges('2001:db9::7', ['2001:db8::/32', '0.0.0.0/0'])).toBe(false);
    expect(addressInRanges('', ['0.0.0.0/0'])).toBe(false);
  });
});

describe('limits', () => {
  it('throttles an address after its failures in the last minute, and forgets them after', () => {
    let now = 0;
    const throttle = createAuthThrottle(3, () => now);
    for (let i = 0; i < 3; i++) throttle.fail('192.0.2.1');
    expect(throttle.blocked('192.0.2.1')).toBe(true);
    expect(throttle.blocked('192.0.2.2')).toBe(false);
    now = 60_001;
    expect(throttle.blocked('192.0.2.1')).toBe(false);
  });

  it('counts per key up to a maximum; release is idempotent', () => {
    const counter = createCounter(2);
    const a = counter.tryAcquire('m')!;
    const b = counter.tryAcquire('m')!;
    expect(counter.tryAcquire('m')).toBeNull();
    a();
    a();
    expect(counter.count('m')).toBe(1);
    expect(counter.tryAcquire('m')).not.toBeNull();
    b();
  });

  it('locks files by path, also below a folder', () => {
    const locks = createFileLocks();
    const release = locks.acquire('/r/u/inbound/sub/a.json');
    expect(locks.isBusy('/r/u/inbound/sub/a.json')).toBe(true);
    expect(locks.isBusyBelow('/r/u/inbound/sub')).toBe(true);
    expect(locks.isBusyBelow('/r/u/inbound/su')).toBe(false);
    release();
    expect(locks.isBusy('/r/u/inbound/sub/a.json')).toBe(false);
  });
});

describe('watcher scope', () => {
  it.each([
    ['/r', false],
    ['/r/shop-1', false],
    ['/r/shop-1/inbound', false],
    ['/r/shop-1/inbound/a.json', false],
    ['/r/shop-1/inbound/sub/a.json', false],
    ['/r/shop-1/outbound', true],
    ['/r/shop-1/outbound/a.ack.json', true],
    ['/r/.host-keys', true],
    ['/r/shop-1/inbound/.rescued-upload-00aa', true],
    ['/r/shop-1/inbound/.hidden/a.json', true],
  ])('%s ignored: %s', (path, ignored) => expect(ignoredByWatcher('/r', path)).toBe(ignored));
});

describe('ls -l lines', () => {
  it('looks like OpenSSH sftp-server output', () => {
    const st = { mode: 0o100640, nlink: 1, size: 1234, mtimeMs: Date.UTC(2026, 0, 5, 9, 7) } as Stats;
    expect(longname('a.json', st, 'shop-1234abcd', Date.UTC(2026, 1, 1))).toBe('-rw-r-----   1 shop-123 shop-123     1234 Jan  5 09:07 a.json');
    expect(longname('a.json', st, 'shop', Date.UTC(2027, 1, 1))).toBe('-rw-r-----   1 shop     shop         1234 Jan  5  2026 a.json');
  });
});
