// The orderSessionKey of an evaluate is derived from the merchant and its idempotencyKey, not
// drawn at random: a retry after a failure between the processor's answer and the commit
// reaches the processor with the same attempt key (`<orderSessionKey>:1`) and gets the first
// answer back instead of a second charge.
import { createHash } from 'node:crypto';

export function orderSessionKeyFor(merchantId: string, idempotencyKey: string): string {
  const h = createHash('sha256').update(`${merchantId}:${idempotencyKey.toLowerCase()}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // RFC 9562 version 8 (custom)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
