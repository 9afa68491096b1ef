import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normaliseCidr } from '../../../src/merchants/cidr.ts';
import { parsePublicKey } from '../../../src/merchants/ssh-key.ts';

describe('CIDR normalisation', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7/32'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
  ])('%s → %s', (input, out) => expect(normaliseCidr(input)).toBe(out));

  it.each(['10.0.0.1/8', '2001:db8::1/32', '300.1.1.1', '10.0.0.0/33', '10.0.0.0/8/1', 'example.com', '10.0.0.0/x'])('refuses %s', (input) => {
    expect(() => normaliseCidr(input)).toThrow(expect.objectContaining({ code: 'ERR_MERCHANT_INVALID_INPUT' }));
  });
});

describe('OpenSSH public keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-keys-'));
  let n = 0;
  const keygen = (type: string) => {
    const file = join(dir, `${type}-${n++}`);
    execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `merchant ${type}`, '-f', file]);
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]).toString().split(' ')[1];
    return { pub: readFileSync(`${file}.pub`, 'utf8'), priv: readFileSync(file, 'utf8'), fp };
  };

  it.each(['ed25519', 'rsa', 'ecdsa'])('parses a %s key with the fingerprint ssh-keygen prints', (type) => {
    const { pub, fp } = keygen(type);
    const key = parsePublicKey(pub);
    expect(key.fingerprint).toBe(fp);
    expect(key.comment).toBe(`merchant ${type}`);
  });

  it('refuses a private key, a type mismatch and garbage', () => {
    const { priv, pub } = keygen('ed25519');
    expect(() => parsePublicKey(priv)).toThrow(expect.objectContaining({ code: 'ERR_MERCHANT_INVALID_INPUT' }));
    expect(() => parsePublicKey(pub.replace('ssh-ed25519', 'ssh-rsa'))).toThrow(expect.objectContaining({ code: 'ERR_MERCHANT_INVALID_INPUT' }));
    expect(() => parsePublicKey('ssh-dss AAAA')).toThrow(expect.objectContaining({ code: 'ERR_MERCHANT_INVALID_INPUT' }));
  });
});
