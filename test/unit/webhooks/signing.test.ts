// Both signature schemes, checked from the outside: Standard Webhooks with the published
// `standardwebhooks` verifier, the x-fc scheme with a check written here from DESIGN.md §2
// (not with the code under test). Tampering with the body or the timestamp fails both.
import { describe, expect, it } from 'vitest';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { liveKeys, secretKey, signatureHeaders } from '../../../src/webhooks/signing.ts';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ Event: 'ORDER COMPLETE', TimeStamp: '2026-11-22T06:00:00.000Z', EventData: { status: 'APPROVED' }, IsResent: false });
const host = 'merchant.example:8443';

/** The x-fc check as a merchant would write it: true when any listed signature matches `secret`. */
function xfcVerifies(secret: string, headers: Record<string, string>, sentBody: string, sentHost: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const digest = createHash('sha512').update(sentBody).digest('base64');
  if (digest !== headers['x-fc-content-sha512']) return false;
  const toSign = `POST\n${headers['x-fc-nonce']};${headers['x-fc-date']};${sentHost};${digest}`;
  const expected = Buffer.from(createHmac('sha512', key).update(toSign).digest('base64'));
  // Signature= values in x-fc-authorization, split by hand: base64 may hold '+', which a
  // query-string parser would turn into a space.
  const auth = headers['x-fc-authorization']!;
  expect(auth.startsWith('HMAC-SHA512 SignedHeaders=x-fc-nonce;x-fc-date;host;x-fc-content-sha512&')).toBe(true);
  const fromAuth = auth.split('&').filter((p) => p.startsWith('Signature=')).map((p) => p.slice('Signature='.length));
  const fromHeader = headers['x-fc-signature']!.split(' ');
  expect(fromAuth).toEqual(fromHeader);
  return fromHeader.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

describe('webhook signatures', () => {
  const secret = newSecret();
  const at = new Date();
  const headers = signatureHeaders({ id: 'msg_0123456789abcdef0123456789abcdef', at, body, host, keys: [secretKey(secret)] });

  it('carry every header of both schemes', () => {
    expect(headers).toMatchObject({
      'webhook-id': 'msg_0123456789abcdef0123456789abcdef',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      'x-fc-nonce': expect.stringMatching(/^[0-9a-f]{32}$/),
      'x-fc-date': at.toUTCString(),
      'x-fc-content-sha512': createHash('sha512').update(body).digest('base64'),
    });
  });

  it('verify with the standardwebhooks package', () => {
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('verify with an independent x-fc check', () => {
    expect(xfcVerifies(secret, headers, body, host)).toBe(true);
    expect(xfcVerifies(newSecret(), headers, body, host)).toBe(false);
  });

  it('fail when the body is tampered with', () => {
    const tampered = body.replace('APPROVED', 'DECLINED');
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow(/No matching signature/);
    expect(xfcVerifies(secret, headers, tampered, host)).toBe(false);
    // Even with the content digest recomputed for the new body, the signature does not match.
    expect(xfcVerifies(secret, { ...headers, 'x-fc-content-sha512': createHash('sha512').update(tampered).digest('base64') }, tampered, host)).toBe(false);
  });

  it('fail when the timestamp is tampered with', () => {
    const moved = String(Number(headers['webhook-timestamp']) - 60);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': moved })).toThrow(/No matching signature/);
    const date = new Date(at.getTime() - 60_000).toUTCString();
    expect(xfcVerifies(secret, { ...headers, 'x-fc-date': date }, body, host)).toBe(false);
    expect(xfcVerifies(secret, headers, body, 'other.example')).toBe(false);
  });

  it('a fresh nonce every time', () => {
    const again = signatureHeaders({ id: 'msg_0123456789abcdef0123456789abcdef', at, body, host, keys: [secretKey(secret)] });
    expect(again['x-fc-nonce']).not.toBe(headers['x-fc-nonce']);
  });
});

describe('secret rotation', () => {
  const oldSecret = newSecret();
  const newOne = newSecret();
  const rotatedAt = new Date();
  const secrets = { current: newOne, previous: oldSecret, previousExpiresAt: new Date(rotatedAt.getTime() + 24 * 3_600_000) };

  it('within 24 hours both secrets sign, newest first, and each verifies alone', () => {
    const keys = liveKeys(secrets, new Date(rotatedAt.getTime() + 23 * 3_600_000));
    expect(keys).toHaveLength(2);
    const h = signatureHeaders({ id: 'msg_00000000000000000000000000000001', at: new Date(), body, host, keys });
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(h['x-fc-signature']!.split(' ')).toHaveLength(2);
    for (const s of [newOne, oldSecret]) {
      expect(new Webhook(s).verify(body, h)).toEqual(JSON.parse(body));
      expect(xfcVerifies(s, h, body, host)).toBe(true);
    }
  });

  it('after 24 hours only the new secret signs', () => {
    const keys = liveKeys(secrets, new Date(rotatedAt.getTime() + 24 * 3_600_000 + 1));
    const h = signatureHeaders({ id: 'msg_00000000000000000000000000000001', at: new Date(), body, host, keys });
    expect(new Webhook(newOne).verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(oldSecret).verify(body, h)).toThrow();
    expect(xfcVerifies(oldSecret, h, body, host)).toBe(false);
    expect(xfcVerifies(newOne, h, body, host)).toBe(true);
  });
});
