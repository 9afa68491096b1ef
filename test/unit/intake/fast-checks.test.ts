// The two per-entry checks intake makes cheap for the usual entry must still find what the
// slow way finds: a card number in clear anywhere in a file's bytes (hasCardNumber, whose digit
// scan now picks the stretches the regex looks at), and a control character in any field
// (checkEntry skips the walk only for text that cannot hold one).
import { describe, expect, it } from 'vitest';
import { hasCardNumber } from '../../../src/scrub.ts';
import { CardScan } from '../../../src/intake/card-scan.ts';
import { checkEntry, mayHoldControls } from '../../../src/intake/entries.ts';
import { controlCharacterField } from '../../../src/domain/control-chars.ts';

describe('hasCardNumber', () => {
  it('finds a Luhn-valid card number plain, spaced or hyphenated, anywhere in the text', () => {
    for (const text of ['4111111111111111', 'x "cardNumber":"4111111111111111",', 'pan 4111 1111 1111 1111 end', '5555-5555-5555-4444', '{"a":"2026-11-27","b":"378282246310005"}']) {
      expect(hasCardNumber(text), text).toBe(true);
    }
  });

  it('ignores dates, phone numbers, ids glued to letters, runs that fail Luhn or are too short', () => {
    for (const text of ['2026-11-27T12:00:00Z +1 555-123-4567', 'ORD-4111111111111111', 'a4111111111111111', '4111111111111112', '411111111111', '4111--1111--1111--1111', '7c9e6679-7425-40de-944b-e07fc1f90ae7']) {
      expect(hasCardNumber(text), text).toBe(false);
    }
  });

  it('finds a number split across two chunks of a file', () => {
    const scan = new CardScan();
    scan.push(Buffer.from('{"requests":[{"n":"4111 1111'));
    expect(scan.found).toBe(false);
    scan.push(Buffer.from(' 1111 1111"}]}'));
    expect(scan.found).toBe(true);
  });
});

describe('control characters in batch entries', () => {
  const ctx = { merchantId: '00000000-0000-4000-8000-000000000001', batchId: '00000000-0000-4000-8000-000000000002', mode: 'sandbox' as const, defaultExpiryDateUtc: undefined, now: new Date() };

  it('can only come from an escape or a raw DEL', () => {
    expect(mayHoldControls('{"orderId":"ORD-1","note":"plain text"}')).toBe(false);
    for (const text of ['{"a":"\\u0000"}', '{"a":"\\b"}', '{"a":"x\u007fy"}', '{"a":"\\u001b[31m"}']) {
      expect(mayHoldControls(text), text).toBe(true);
      expect(controlCharacterField(JSON.parse(text)), text).toBe('a');
    }
  });

  it('refuses the entry whose text holds one, with or without its text', () => {
    const text = '{"orderId":"ORD-\\u0007","sequenceNumber":1}';
    for (const given of [text, undefined]) {
      const outcome = checkEntry(JSON.parse(text), 1, ctx, given);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.rejected.errors[0]).toMatchObject({ field: 'orderId', code: 'ERR_MODEL_FORMAT' });
    }
  });
});
