import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { createTokenService, type TokenClaims } from '../../../src/auth/tokens.ts';
import { key32 } from '../../helpers/keys.ts';

const A: TokenClaims = { merchantId: '00000000-0000-4000-8000-00000000000a', mid: '11111111-1111-4111-8111-11111111111a', clientId: 'rc_a' };
const B: TokenClaims = { merchantId: '00000000-0000-4000-8000-00000000000b', mid: '11111111-1111-4111-8111-11111111111b', clientId: 'rc_b' };

function service(overrides: Partial<Parameters<typeof createTokenService>[0]> = {}) {
  return createTokenService({
    signingKeys: { k1: key32() },
    activeSigningKeyId: 'k1',
    issuer: 'rescued',
    lifetimeSeconds: 600,
    isClientActive: async () => true,
    ...overrides,
  });
}

describe('token service', () => {
  it('issues a token that verifies to the same claims', async () => {
    const tokens = service();
    const issued = await tokens.issue(A);
    expect(issued.expiresInSeconds).toBe(600);
    await expect(tokens.verify(issued.token)).resolves.toEqual(A);
  });

  it('refuses an expired token', async () => {
    let now = Date.now();
    const tokens = service({ now: () => now });
    const { token } = await tokens.issue(A);
    now += 601_000;
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID', message: expect.stringContaining('expired') });
  });

  it('refuses a tampered token', async () => {
    const tokens = service();
    const { token } = await tokens.issue(A);
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload.mid = B.mid;
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
    await expect(tokens.verify(forged)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
  });

  it('refuses a token signed with a foreign key, even under a known key id', async () => {
    const ours = service();
    const foreign = await new SignJWT({ mid: A.mid, mrc: A.merchantId })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer('rescued')
      .setAudience('rescued-api')
      .setSubject(A.clientId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(Buffer.from(key32(), 'base64'));
    await expect(ours.verify(foreign)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
  });

  it('refuses an unsigned (alg none) token', async () => {
    const tokens = service();
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ mid: A.mid, mrc: A.merchantId, sub: 'x', iss: 'rescued', aud: 'rescued-api', exp: 9e9 })}.`;
    await expect(tokens.verify(none)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
  });

  it('never accepts merchant A\'s token for merchant B', async () => {
    const tokens = service();
    const { token } = await tokens.issue(A);
    await expect(tokens.verify(token, { expectedMid: A.mid.toUpperCase() })).resolves.toEqual(A);
    await expect(tokens.verify(token, { expectedMid: B.mid })).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
  });

  it('refuses the tokens of a disabled merchant', async () => {
    const tokens = service({ isClientActive: async (id) => id !== A.merchantId });
    await expect(tokens.verify((await tokens.issue(A)).token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
    await expect(tokens.verify((await tokens.issue(B)).token)).resolves.toEqual(B);
  });

  it('still verifies tokens of a retired signing key while it is configured', async () => {
    const k1 = key32();
    const old = service({ signingKeys: { k1 }, activeSigningKeyId: 'k1' });
    const rotated = service({ signingKeys: { k1, k2: key32() }, activeSigningKeyId: 'k2' });
    const { token } = await old.issue(A);
    await expect(rotated.verify(token)).resolves.toEqual(A);
  });

  it.each([['exp', { iat: true }], ['iat', { exp: true }]])('refuses a well-signed token without %s', async (_missing, claims) => {
    const key = key32();
    const tokens = service({ signingKeys: { k1: key } });
    let jwt = new SignJWT({ mid: A.mid, mrc: A.merchantId }).setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'at+jwt' }).setIssuer('rescued').setAudience('rescued-api').setSubject(A.clientId);
    if ('iat' in claims) jwt = jwt.setIssuedAt();
    if ('exp' in claims) jwt = jwt.setExpirationTime('10m');
    const token = await jwt.sign(Buffer.from(key, 'base64'));
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
  });

  it('asks about the client the token was issued to, not only its merchant', async () => {
    const asked: string[] = [];
    const tokens = service({ isClientActive: async (merchantId, clientId) => (asked.push(`${merchantId} ${clientId}`), clientId !== 'rc_revoked') });
    await expect(tokens.verify((await tokens.issue(A)).token)).resolves.toEqual(A);
    const revoked = await tokens.issue({ ...A, clientId: 'rc_revoked' });
    await expect(tokens.verify(revoked.token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID', message: expect.stringContaining('revoked') });
    expect(asked).toEqual([`${A.merchantId} rc_a`, `${A.merchantId} rc_revoked`]);
  });
});
