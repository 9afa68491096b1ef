// Card fingerprints: a keyed HMAC-SHA256 of the card number (vault.fingerprintKey), so the
// vault can find "this card at this merchant" without decrypting anything, while a database
// dump alone cannot test a guessed number against it (a plain hash of a 16-digit number
// with a known BIN and last four can be brute-forced in seconds).
import { createHmac, createSecretKey } from 'node:crypto';

// Versioned label: a different use of the same key never yields the same value.
const LABEL = 'rescued-card-fingerprint:v1:';

export type Fingerprinter = (pan: string) => string;

/** The key object is made once; each call is one HMAC over the number. */
export function createFingerprinter(keyBase64: string): Fingerprinter {
  const key = createSecretKey(Buffer.from(keyBase64, 'base64'));
  if (key.symmetricKeySize !== 32) throw new Error('vault.fingerprintKey must be 32 bytes');
  return (pan) => createHmac('sha256', key).update(LABEL).update(pan).digest('base64url');
}
