import { describe, expect, it } from 'vitest';
import { readClientCredentials } from '../../../src/auth/client-credentials.ts';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('client credentials', () => {
  it('reads HTTP Basic with grant_type in the body, form-decoding id and secret', () => {
    expect(readClientCredentials(basic('rc_1', 'a b+c'), { grant_type: 'client_credentials' })).toEqual({ clientId: 'rc_1', clientSecret: 'a b+c', method: 'basic' });
  });
  it('reads body credentials', () => {
    expect(readClientCredentials(undefined, { grant_type: 'client_credentials', client_id: 'rc_1', client_secret: 's' })).toEqual({ clientId: 'rc_1', clientSecret: 's', method: 'body' });
  });
  it('reads the appKey form without grant_type', () => {
    expect(readClientCredentials(undefined, { appKey: 'rc_1', appSecret: 's' })).toEqual({ clientId: 'rc_1', clientSecret: 's', method: 'appKey' });
  });
  it('requires grant_type for the RFC forms', () => {
    expect(() => readClientCredentials(basic('a', 'b'), {})).toThrow(expect.objectContaining({ code: 'ERR_AUTH_INVALID_REQUEST' }));
  });
  it('refuses other grant types', () => {
    expect(() => readClientCredentials(basic('a', 'b'), { grant_type: 'password' })).toThrow(expect.objectContaining({ code: 'ERR_AUTH_UNSUPPORTED_GRANT_TYPE' }));
  });
  it('refuses two authentication methods at once', () => {
    expect(() => readClientCredentials(basic('a', 'b'), { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' })).toThrow(
      expect.objectContaining({ code: 'ERR_AUTH_INVALID_REQUEST' }),
    );
  });
  it('is invalid_client without credentials or with an appKey but no secret', () => {
    expect(() => readClientCredentials(undefined, { grant_type: 'client_credentials' })).toThrow(expect.objectContaining({ code: 'ERR_AUTH_INVALID_CLIENT' }));
    expect(() => readClientCredentials(undefined, { appKey: 'x' })).toThrow(expect.objectContaining({ code: 'ERR_AUTH_INVALID_CLIENT' }));
  });
});
