// Parses an OpenSSH public key line ("ssh-ed25519 AAAA… comment") and checks that the key
// blob really is of the type the line claims, so a pasted private key, a truncated line or a
// key of an unsupported type is refused when it is registered, not at the first login.
import { createHash } from 'node:crypto';
import { RescuedError } from '../errors.ts';

export const ACCEPTED_KEY_TYPES = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'] as const;

export interface PublicKey {
  algorithm: string;
  /** base64 of the wire-format blob. */
  publicKey: string;
  /** As `ssh-keygen -lf` prints it: SHA256:<base64 without padding>. */
  fingerprint: string;
  comment: string | null;
}

function blobType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const len = blob.readUInt32BE(0);
  if (len > 64 || blob.length < 4 + len) return undefined;
  return blob.subarray(4, 4 + len).toString('latin1');
}

export function parsePublicKey(text: string): PublicKey {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  if (!line || line.includes('PRIVATE KEY')) throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', 'The file does not hold an OpenSSH public key.');
  const [algorithm, b64, ...rest] = line.split(/\s+/);
  if (!algorithm || !b64 || !(ACCEPTED_KEY_TYPES as readonly string[]).includes(algorithm)) {
    throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', `Unsupported key type; accepted: ${ACCEPTED_KEY_TYPES.join(', ')}.`);
  }
  const blob = Buffer.from(b64, 'base64');
  if (blobType(blob) !== algorithm) throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', 'The key data does not match its type.');
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { algorithm, publicKey: blob.toString('base64'), fingerprint, comment: rest.join(' ') || null };
}
