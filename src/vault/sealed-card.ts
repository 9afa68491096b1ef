// What the vault encrypts for one card, and how. The card number and the holder's name are
// sealed together (AES-256-GCM through cipher.ts); the associated data names the merchant
// and the token, so a sealed value copied into another row, or another merchant's row,
// does not open. The CVV is not part of the payload: it is never stored.
import { randomBytes } from 'node:crypto';
import { open, seal, type KeyRing } from './cipher.ts';

export interface CardSecret {
  pan: string;
  holderName: string;
  firstName?: string;
  lastName?: string;
}

export const TOKEN_PREFIX = 'tok_';

const TOKEN_BYTES = 24;
// Random bytes are drawn 256 tokens at a time: one call to the generator per 256 tokens
// instead of one per token, which showed in the tokenize profile.
let pool = Buffer.alloc(0);
let used = 0;

/** 192 random bits, base64url: unguessable and unrelated to the card. */
export function newCardToken(): string {
  if (used + TOKEN_BYTES > pool.length) {
    pool = randomBytes(TOKEN_BYTES * 256);
    used = 0;
  }
  used += TOKEN_BYTES;
  return `${TOKEN_PREFIX}${pool.toString('base64url', used - TOKEN_BYTES, used)}`;
}

export function looksLikeCardToken(value: string): boolean {
  return /^tok_[A-Za-z0-9_-]{32}$/.test(value);
}

export const cardAad = (merchantId: string, token: string) => `card:${merchantId}:${token}`;

export function sealCard(ring: KeyRing, merchantId: string, token: string, secret: CardSecret): string {
  const payload: CardSecret = { pan: secret.pan, holderName: secret.holderName };
  if (secret.firstName !== undefined) payload.firstName = secret.firstName;
  if (secret.lastName !== undefined) payload.lastName = secret.lastName;
  return seal(ring, JSON.stringify(payload), cardAad(merchantId, token));
}

export function openCard(ring: KeyRing, merchantId: string, token: string, sealed: string): CardSecret {
  return JSON.parse(open(ring, sealed, cardAad(merchantId, token)).toString('utf8')) as CardSecret;
}
