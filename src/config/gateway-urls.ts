// processor.gatewayUrls: a base URL per account type, in place of the real gateway (a local
// fake in tests, a recorded gateway in a staging set-up). Checked and brought to one form when
// the configuration is loaded, because each connector reads it differently and a wrong form
// used to surface only as a bare 404 from the first charge (issue 30):
// - stripe: stripe-node takes a host, a port and a protocol and adds `/v1/…` itself; a path
//   would be dropped silently. The origin only (a `/v1` the integrator added is taken off).
// - braintree: the SDK's Environment is a host, a port and TLS on or off: the origin only.
// - adyen: the connector sends to `<url>/payments`, `<url>/paymentMethods`, as the SDK does with
//   its own base URL (https://checkout-test.adyen.com/v72): the path must end with the Checkout
//   API version.
// - authorizenet, nmi, http: taken as they are (docs/gateways/ gives each form).
// In production the override sends every charge of that type, and the account's secret key,
// to another host: it is refused unless processor.acknowledgeGatewayUrls says it is meant.
import { GATEWAYS, SANDBOX, type Gateway } from '../gateways.ts';
import { ConfigError } from './error.ts';
import type { Config } from './schema.ts';

type Form = 'origin' | 'versioned' | 'any';

/** The form of each type's base URL; a type not named here takes any http(s) URL as it is. */
const FORMS: Partial<Record<Gateway, { form: Form; example: string }>> = {
  stripe: { form: 'origin', example: 'https://stripe-fake.internal:12111' },
  braintree: { form: 'origin', example: 'https://braintree-fake.internal:3443' },
  adyen: { form: 'versioned', example: 'https://adyen-fake.internal:8443/v72' },
};

const key = (type: string) => `processor.gatewayUrls.${type}`;

function parse(type: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(key(type), 'not an absolute URL (e.g. https://host:port)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(key(type), `must be an http:// or https:// URL, not ${url.protocol}`);
  // Credentials belong in the account (sealed), never in a configuration file or a log line.
  if (url.username || url.password) throw new ConfigError(key(type), 'must not carry a user name or password');
  if (url.search || url.hash) throw new ConfigError(key(type), 'must not carry a query or a fragment');
  return url;
}

/** One type's URL in the form its connector reads; a ConfigError naming the key otherwise. */
export function normaliseGatewayUrl(type: string, raw: string): string {
  if (type === SANDBOX || !(GATEWAYS as readonly string[]).includes(type)) {
    throw new ConfigError(key(type), `not an account type with a connector; types: ${GATEWAYS.filter((g) => g !== SANDBOX).join(', ')}`);
  }
  const url = parse(type, raw);
  const path = url.pathname.replace(/\/+$/, '');
  const spec = FORMS[type as Gateway];
  if (spec?.form === 'origin') {
    if (path !== '' && !(type === 'stripe' && path === '/v1')) {
      throw new ConfigError(key(type), `give the origin only, e.g. ${spec.example}: the ${type} SDK adds the API path itself and would drop ${url.pathname}`);
    }
    return url.origin;
  }
  if (spec?.form === 'versioned') {
    if (!/\/v\d+$/.test(path)) throw new ConfigError(key(type), `must end with the Checkout API version, e.g. ${spec.example} (rescued calls <url>/payments)`);
    return `${url.origin}${path}`;
  }
  return `${url.origin}${path === '' ? '' : url.pathname}`;
}

/**
 * Checks and normalises processor.gatewayUrls in place, before the configuration is frozen. In
 * production a set override needs processor.acknowledgeGatewayUrls.
 */
export function checkGatewayUrls(config: Config): void {
  const { processor } = config;
  const types = Object.keys(processor.gatewayUrls);
  processor.gatewayUrls = Object.fromEntries(types.map((type) => [type, normaliseGatewayUrl(type, processor.gatewayUrls[type]!)]));
  if (config.mode === 'production' && types.length > 0 && !processor.acknowledgeGatewayUrls) {
    throw new ConfigError(
      'processor.gatewayUrls',
      `set in production mode for ${types.join(', ')}: every charge of those account types, and their secret keys, would go to ${types.map((t) => processor.gatewayUrls[t]).join(', ')} instead of the gateway. Remove it, or set processor.acknowledgeGatewayUrls to true if that is meant`,
    );
  }
}

