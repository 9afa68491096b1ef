// AES-256-GCM with a key ring: each ciphertext names the key that sealed it, so keys can
// rotate (new data under the active key, old data still opens until re-encrypted). The
// associated data binds a ciphertext to its row and purpose, so a sealed value copied into
// another row does not open.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface KeyRing {
  readonly activeKeyId: string;
  /** Key objects, made once: a raw Buffer key is re-imported on every call (3x slower). */
  readonly keys: ReadonlyMap<string, KeyObject>;
}

export function keyRingFrom(keys: Readonly<Record<string, string>>, activeKeyId: string): KeyRing {
  const raw = new Map(Object.entries(keys).map(([id, b64]) => [id, Buffer.from(b64, 'base64')]));
  for (const [id, key] of raw) if (key.length !== 32) throw new Error(`key ${id} is not 32 bytes`);
  const map = new Map([...raw].map(([id, key]) => [id, createSecretKey(key)]));
  if (!map.has(activeKeyId)) throw new Error(`active key ${activeKeyId} is not in the key ring`);
  return { activeKeyId, keys: map };
}

export function seal(ring: KeyRing, plaintext: Buffer | string, aad: string): string {
  const key = ring.keys.get(ring.activeKeyId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${ring.activeKeyId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function open(ring: KeyRing, sealed: string, aad: string): Buffer {
  const [version, keyId, ivText, bodyText] = sealed.split('.');
  if (version !== VERSION || !keyId || !ivText || !bodyText) throw new Error('not a sealed value');
  const key = ring.keys.get(keyId);
  if (!key) throw new Error(`sealed with key "${keyId}", which is not in the key ring`);
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
}

/** What a merchant's sealed webhook secret is bound to: the merchants service seals it, the dispatcher opens it, `vault rotate` re-seals it. */
export const webhookSecretAad = (merchantId: string) => `webhook-secret:${merchantId}`;

/** The key id a sealed value was made with (for `vault rotate`). */
export function sealedKeyId(sealed: string): string | undefined {
  return sealed.split('.')[1];
}
