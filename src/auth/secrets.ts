// Generation and checking of the credentials rescued hands out. They are 256-bit random
// values, so a plain SHA-256 digest is a safe way to store them: there is no dictionary to
// search (a slow password hash would only slow down every token request).
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function newClientId(): string {
  return `rc_${randomBytes(12).toString('base64url')}`;
}

/** Webhook signing secret in the Standard Webhooks form: whsec_<base64 of 32 bytes>. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

export function matchesDigest(secret: string, expected: string): boolean {
  const a = Buffer.from(digest(secret));
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export { randomUUID };
