import { randomBytes } from 'node:crypto';

export const key32 = () => randomBytes(32).toString('base64');

export function testKeyRing() {
  return { keys: { k1: key32() }, activeKeyId: 'k1' };
}
