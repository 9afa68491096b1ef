import { describe, expect, it } from 'vitest';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createFingerprinter } from '../../../src/vault/fingerprint.ts';
import { looksLikeCardToken, newCardToken, openCard, sealCard } from '../../../src/vault/sealed-card.ts';
import { key32 } from '../../helpers/keys.ts';

const PAN = '4111111111111111';

describe('card tokens', () => {
  it('are random, 192 bits, with a recognisable prefix', () => {
    const tokens = new Set(Array.from({ length: 10_000 }, newCardToken));
    expect(tokens.size).toBe(10_000);
    for (const t of [...tokens].slice(0, 100)) {
      expect(looksLikeCardToken(t)).toBe(true);
      expect(Buffer.from(t.slice(4), 'base64url')).toHaveLength(24);
      expect(t).not.toContain('1111');
    }
  });
});

describe('card fingerprints', () => {
  it('are deterministic per key, differ between keys and do not contain the number', () => {
    const k = key32();
    const a = createFingerprinter(k);
    expect(a(PAN)).toBe(createFingerprinter(k)(PAN));
    expect(a(PAN)).not.toBe(a('5555555555554444'));
    expect(a(PAN)).not.toBe(createFingerprinter(key32())(PAN));
    expect(a(PAN)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuse a key that is not 32 bytes', () => {
    expect(() => createFingerprinter(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});

describe('sealed cards', () => {
  const ring = keyRingFrom({ k1: key32() }, 'k1');
  const secret = { pan: PAN, holderName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' };

  it('open only for their merchant and token, and hold no CVV', () => {
    const sealed = sealCard(ring, 'm1', 'tok_a', { ...secret, cvv: '123' } as typeof secret);
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(sealed).not.toContain(PAN);
    expect(openCard(ring, 'm1', 'tok_a', sealed)).toEqual(secret);
    expect(() => openCard(ring, 'm2', 'tok_a', sealed)).toThrow();
    expect(() => openCard(ring, 'm1', 'tok_b', sealed)).toThrow();
  });
});
