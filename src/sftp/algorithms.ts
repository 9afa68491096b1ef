// The SSH algorithms the server offers: safe ones only (no CBC, no SHA-1 MAC or signature,
// no SHA-1 key exchange), as OpenSSH 9's own server defaults minus what ssh2 lacks.
//
// The client's preference order decides among the ciphers both sides offer (RFC 4253 §7.1),
// and OpenSSH lists chacha20-poly1305 first, then AES-CTR, then AES-GCM. ssh2 decrypts
// AES-GCM more than twice as fast as chacha20-poly1305 (with its native binding: about 70 vs
// 170 ms of CPU per 500 MB), and OpenSSH's client encrypts it faster too (about 0.4 vs 0.6 s
// of client CPU per 500 MB upload), so an OpenSSH client (6.2 or later: every one with
// AES-GCM) is offered AES-GCM only. Other clients get the whole list: some have no AES-GCM (paramiko, libssh2
// before 1.11). docs/performance.md, "SFTP", has the measurements.
import { createRequire } from 'node:module';
import type { Algorithms, CipherAlgorithm, Connection } from 'ssh2';

const AES_GCM: CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com'];

export const SSH_ALGORITHMS = {
  kex: [
    'curve25519-sha256',
    'curve25519-sha256@libssh.org',
    'ecdh-sha2-nistp256',
    'ecdh-sha2-nistp384',
    'ecdh-sha2-nistp521',
    'diffie-hellman-group-exchange-sha256',
    'diffie-hellman-group16-sha512',
    'diffie-hellman-group18-sha512',
    'diffie-hellman-group14-sha256',
  ],
  // `ssh-rsa` would be RSA with SHA-1 signatures; the RSA host key is offered with SHA-2.
  serverHostKey: ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'],
  cipher: [...AES_GCM, 'chacha20-poly1305@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'],
  // Only used with AES-CTR (the AEAD ciphers carry their own tag).
  hmac: ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com', 'hmac-sha2-256', 'hmac-sha2-512'],
} satisfies Algorithms;

/** OpenSSH 6.2 (2013) added AES-GCM. */
const OPENSSH = /^OpenSSH_(\d+)\.(\d+)/;

export function opensshWithAesGcm(software: string): boolean {
  const m = OPENSSH.exec(software);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 6 || (major === 6 && minor >= 2);
}

interface AlgorithmLists {
  kex: { array: string[] };
  serverHostKey: { array: string[] };
  cs: Record<'cipher' | 'mac' | 'compress' | 'lang', { array: string[] }>;
  sc: Record<'cipher' | 'mac' | 'compress' | 'lang', { array: string[] }>;
}

interface KexInit {
  lists: AlgorithmLists;
}

const { KexInit } = createRequire(import.meta.url)('ssh2/lib/protocol/kex.js') as {
  KexInit: new (lists: Record<string, unknown>) => KexInit;
};

/** Offers already narrowed, per original offer: [the other clients', OpenSSH's]. */
const narrowed = new WeakMap<KexInit, [KexInit, KexInit]>();

/**
 * ssh2 adds `ssh-rsa` (SHA-1 signatures) for an RSA host key whatever the configured list
 * says, so it is taken out here; for OpenSSH the ciphers are AES-GCM only.
 */
function narrow(offer: KexInit, aesGcmOnly: boolean): KexInit {
  let pair = narrowed.get(offer);
  if (!pair) {
    const { kex, serverHostKey, cs, sc } = offer.lists;
    const make = (ciphers?: string[]) => {
      const direction = (d: AlgorithmLists['cs']) => ({ cipher: ciphers ?? d.cipher.array, mac: d.mac.array, compress: d.compress.array, lang: d.lang.array });
      return new KexInit({ kex: kex.array, serverHostKey: serverHostKey.array.filter((a) => a !== 'ssh-rsa'), cs: direction(cs), sc: direction(sc) });
    };
    pair = [make(), make(AES_GCM)];
    narrowed.set(offer, pair);
  }
  return pair[aesGcmOnly ? 1 : 0];
}

/**
 * Called when a client's identification has arrived: ssh2 sends the server's KEXINIT right
 * after, from `_protocol._offer`, which is replaced here. Returns the ciphers offered.
 */
export function narrowOffer(client: Connection, software: string, preferAesGcm: boolean): string[] {
  const protocol = (client as unknown as { _protocol: { _offer: KexInit } })._protocol;
  protocol._offer = narrow(protocol._offer, preferAesGcm && opensshWithAesGcm(software));
  return protocol._offer.lists.cs.cipher.array;
}
