// For test/bench/sftp.bench.ts: the CPU ssh2 spends decrypting an upload with each cipher
// it may negotiate, through the same code the server runs (its native binding when loaded).
// The data is encrypted once, cut into 64 KiB pieces as the socket delivers it, and
// decrypted three times; the least CPU of the three is kept.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';

interface CipherInfo {
  keyLen: number;
  ivLen: number;
}
interface MacInfo {
  len: number;
}
interface Sealer {
  allocPacket(payloadLength: number): Buffer;
  encrypt(packet: Buffer): void;
}
interface Opener {
  decrypt(data: Buffer, start: number, end: number): void;
}
const crypto = createRequire(import.meta.url)('ssh2/lib/protocol/crypto.js') as {
  CIPHER_INFO: Record<string, CipherInfo>;
  MAC_INFO: Record<string, MacInfo>;
  bindingAvailable: boolean;
  createCipher(config: unknown): Sealer;
  createDecipher(config: unknown): Opener;
};

export const CIPHERS = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes128-ctr+hmac-sha2-256-etm@openssh.com'];

/** 32 KiB of data per SSH packet, as OpenSSH sends it. */
const PAYLOAD = 32 * 1024 + 9;
const PACKETS = 2000;
const READ = 64 * 1024;

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Milliseconds of CPU to decrypt `perMB` megabytes with `name` (cipher[+mac]). */
export function decryptCpuMs(name: string, perMB: number): number {
  const [cipherName, macName] = name.split('+') as [string, string | undefined];
  const info = crypto.CIPHER_INFO[cipherName]!;
  const mac = macName ? crypto.MAC_INFO[macName] : undefined;
  const key = randomBytes(info.keyLen);
  const iv = randomBytes(info.ivLen || 16);
  const macKey = mac ? randomBytes(mac.len) : undefined;
  const wire: Buffer[] = [];
  const sealer = crypto.createCipher({ outbound: { onWrite: (b: Buffer) => wire.push(Buffer.from(b)), cipherInfo: info, cipherKey: key, cipherIV: Buffer.from(iv), seqno: 0, macInfo: mac, macKey } });
  const payload = randomBytes(PAYLOAD);
  for (let i = 0; i < PACKETS; i++) {
    const packet = sealer.allocPacket(PAYLOAD);
    payload.copy(packet, 5);
    sealer.encrypt(packet);
  }
  const all = Buffer.concat(wire);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    // Decryption happens in place: each round gets its own copy of the reads.
    const reads: Buffer[] = [];
    for (let p = 0; p < all.length; p += READ) reads.push(Buffer.from(all.subarray(p, p + READ)));
    let bytes = 0;
    const opener = crypto.createDecipher({ inbound: { onPayload: (p: Buffer) => void (bytes += p.length), decipherInfo: info, decipherKey: key, decipherIV: Buffer.from(iv), seqno: 0, macInfo: mac, macKey } });
    const start = cpuSeconds();
    for (const r of reads) opener.decrypt(r, 0, r.length);
    best = Math.min(best, cpuSeconds() - start);
    if (bytes !== PACKETS * PAYLOAD) throw new Error(`${name}: decrypted ${bytes} bytes`);
  }
  return (best * 1000 * perMB * 1e6) / (PACKETS * PAYLOAD);
}

export const nativeBinding = crypto.bindingAvailable;
