// Host keys are generated once and kept, so a malformed one would stop every later start:
// a pair ssh2 cannot read back is generated again (ssh2 1.17 strips leading zero bytes from
// about 1 ed25519 public key in 256).
import { describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { KEY_TYPES, readableKeyPair, type KeyGenerator } from '../../../src/sftp/host-keys.ts';

const ed25519 = KEY_TYPES.find((k) => k.type === 'ed25519')!;

describe('host key generation', () => {
  it('throws away a pair ssh2 cannot parse and keeps the next good one', () => {
    // A pair known readable: ssh2's own generator makes an unreadable one about 1 time in 256.
    const good = readableKeyPair(ed25519);
    // What the bug produces: an OpenSSH public key line whose blob is one byte short.
    const blob = Buffer.from(good.public.split(' ')[1]!, 'base64');
    const broken = { private: good.private, public: `ssh-ed25519 ${blob.subarray(0, blob.length - 1).toString('base64')}` };
    expect(ssh2.utils.parseKey(broken.public)).toBeInstanceOf(Error);
    const calls: number[] = [];
    const generate: KeyGenerator = () => (calls.push(1), calls.length === 1 ? broken : good);
    expect(readableKeyPair(ed25519, generate)).toBe(good);
    expect(calls).toHaveLength(2);
  });

  it('gives up with a clear error when the generator never yields a readable pair', () => {
    expect(() => readableKeyPair(ed25519, () => ({ private: 'nonsense', public: 'nonsense' }))).toThrow(/could not generate a readable ed25519 host key/);
  });
});
