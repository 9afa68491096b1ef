// processor.gatewayUrls is checked and brought to the form each connector reads when the
// configuration is loaded (src/config/gateway-urls.ts): Stripe and Braintree take an origin,
// Adyen a path ending with the API version; an unknown type, another scheme, credentials or a
// query are refused naming the key. In production the override needs an acknowledgement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { normaliseGatewayUrl } from '../../../src/config/gateway-urls.ts';
import { key32 } from '../../helpers/keys.ts';

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-gateway-urls-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The error normaliseGatewayUrl throws, or undefined. */
function refusal(type: string, url: string): ConfigError | undefined {
  try {
    normaliseGatewayUrl(type, url);
    return undefined;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err;
  }
}

describe('processor.gatewayUrls forms', () => {
  it('stripe and braintree: the origin; a trailing slash, and for Stripe a /v1, are taken off', () => {
    expect(normaliseGatewayUrl('stripe', 'http://127.0.0.1:12111/')).toBe('http://127.0.0.1:12111');
    expect(normaliseGatewayUrl('stripe', 'https://stripe-fake.internal:12111/v1/')).toBe('https://stripe-fake.internal:12111');
    expect(normaliseGatewayUrl('braintree', 'https://bt.internal:3443')).toBe('https://bt.internal:3443');
  });

  it('stripe and braintree: a path the SDK would drop is refused, naming the key and the form', () => {
    expect(refusal('stripe', 'https://gw.internal/stripe')).toMatchObject({ key: 'processor.gatewayUrls.stripe', message: expect.stringContaining('give the origin only, e.g. https://stripe-fake.internal:12111') });
    expect(refusal('braintree', 'https://gw.internal/braintree/v1')?.message).toContain('the braintree SDK adds the API path itself and would drop /braintree/v1');
  });

  it('adyen: the path must end with the Checkout API version', () => {
    expect(normaliseGatewayUrl('adyen', 'https://127.0.0.1:8443/v72/')).toBe('https://127.0.0.1:8443/v72');
    expect(normaliseGatewayUrl('adyen', 'https://prefix-checkout-live.adyenpayments.com/checkout/v71')).toBe('https://prefix-checkout-live.adyenpayments.com/checkout/v71');
    expect(refusal('adyen', 'https://127.0.0.1:8443')).toMatchObject({ key: 'processor.gatewayUrls.adyen', message: expect.stringContaining('must end with the Checkout API version, e.g. https://adyen-fake.internal:8443/v72') });
    expect(refusal('adyen', 'https://127.0.0.1:8443/checkout')?.key).toBe('processor.gatewayUrls.adyen');
  });

  it('authorizenet, nmi and http: taken as given', () => {
    expect(normaliseGatewayUrl('authorizenet', 'https://anet.internal/xml/v1/request.api')).toBe('https://anet.internal/xml/v1/request.api');
    expect(normaliseGatewayUrl('nmi', 'https://nmi.internal:9443')).toBe('https://nmi.internal:9443');
    expect(normaliseGatewayUrl('http', 'https://bridge.internal/rescued/charge')).toBe('https://bridge.internal/rescued/charge');
  });

  it('refuses an unknown type, the sandbox, another scheme, credentials in the URL and a query', () => {
    expect(refusal('strip', 'https://x.internal')?.message).toBe('processor.gatewayUrls.strip: not an account type with a connector; types: stripe, adyen, braintree, authorizenet, nmi, http');
    expect(refusal('sandbox', 'https://x.internal')?.key).toBe('processor.gatewayUrls.sandbox');
    expect(refusal('nmi', 'ftp://x.internal')?.message).toContain('must be an http:// or https:// URL');
    expect(refusal('nmi', 'not a url')?.message).toContain('not an absolute URL');
    const withSecret = refusal('http', 'https://user:s3cretpass@bridge.internal/x');
    expect(withSecret?.message).toContain('must not carry a user name or password');
    expect(withSecret?.message).not.toContain('s3cretpass');
    expect(refusal('http', 'https://bridge.internal/x?key=1')?.message).toContain('must not carry a query or a fragment');
  });
});

describe('processor.gatewayUrls when the configuration is loaded', () => {
  const production = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    RESCUED_MODE: 'production', RESCUED_DATA_DIR: tmp(),
    RESCUED_AUTH_SIGNING_KEYS: JSON.stringify({ k1: key32() }), RESCUED_AUTH_ACTIVE_SIGNING_KEY_ID: 'k1',
    RESCUED_VAULT_KEYS: JSON.stringify({ v1: key32() }), RESCUED_VAULT_ACTIVE_KEY_ID: 'v1', RESCUED_VAULT_FINGERPRINT_KEY: key32(),
    ...extra,
  });
  const urls = JSON.stringify({ stripe: 'http://127.0.0.1:12111/v1', adyen: 'https://127.0.0.1:8443/v72/' });

  it('sandbox: normalised and frozen', () => {
    const config = loadConfig({ env: { RESCUED_DATA_DIR: tmp(), RESCUED_PROCESSOR_GATEWAY_URLS: urls } });
    expect(config.processor.gatewayUrls).toEqual({ stripe: 'http://127.0.0.1:12111', adyen: 'https://127.0.0.1:8443/v72' });
    expect(Object.isFrozen(config.processor.gatewayUrls)).toBe(true);
  });

  it('a wrong form stops the load, naming the key', () => {
    expect(() => loadConfig({ env: { RESCUED_DATA_DIR: tmp(), RESCUED_PROCESSOR_GATEWAY_URLS: JSON.stringify({ adyen: 'https://127.0.0.1:8443' }) } })).toThrow(/^processor\.gatewayUrls\.adyen: must end with the Checkout API version/);
  });

  it('production: refused without processor.acknowledgeGatewayUrls, naming the types and where their charges would go', () => {
    let err: unknown;
    try {
      loadConfig({ env: production({ RESCUED_PROCESSOR_GATEWAY_URLS: urls }) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ key: 'processor.gatewayUrls' });
    expect((err as Error).message).toBe(
      'processor.gatewayUrls: set in production mode for stripe, adyen: every charge of those account types, and their secret keys, would go to http://127.0.0.1:12111, https://127.0.0.1:8443/v72 instead of the gateway. Remove it, or set processor.acknowledgeGatewayUrls to true if that is meant',
    );
  });

  it('production: loads with the acknowledgement, and without any override needs none', () => {
    expect(loadConfig({ env: production({ RESCUED_PROCESSOR_GATEWAY_URLS: urls, RESCUED_PROCESSOR_ACKNOWLEDGE_GATEWAY_URLS: 'true' }) }).processor.gatewayUrls).toEqual({ stripe: 'http://127.0.0.1:12111', adyen: 'https://127.0.0.1:8443/v72' });
    expect(loadConfig({ env: production({}) }).processor).toMatchObject({ gatewayUrls: {}, acknowledgeGatewayUrls: false });
  });
});
