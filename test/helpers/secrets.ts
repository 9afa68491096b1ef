// Whether a text names a secret. A secret made of digits (a card number, a CVV) counts only as a
// whole run of digits: the gateway fakes' random references ("REFID:737837349") hold a CVV's
// three digits by chance now and then, which is not the CVV leaking, and made these checks fail
// about once in a hundred runs.
import { expect } from 'vitest';

export function namesSecret(text: string, secret: string): boolean {
  return /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(text) : text.includes(secret);
}

export function expectNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(namesSecret(text, secret), `the text names ${/^\d+$/.test(secret) ? `a ${secret.length}-digit secret` : 'a secret'}: ${text.slice(0, 300)}`).toBe(false);
}
