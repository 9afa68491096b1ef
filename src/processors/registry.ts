// Every account type: the schema of its credentials (one schema per input), which of their
// fields are secrets (masked in listings), and how its connector is made. The sandbox is the
// built-in processor (sandbox.ts), not a connector: it takes no credentials.
//
// The schemas are loaded with this module; the connectors are loaded on their first call.
// The gateway SDKs weigh on every process that imports the router, whether or not any
// merchant has such an account: @adyen/api-library alone keeps about 20 MiB of JavaScript heap
// (docs/performance.md, "Idle memory"). A connector is made synchronously, as the router needs,
// and its module is imported when a call is first made; what the router reads before calling
// (`idempotent`, `acceptsCards`) is stated here per type, and a unit test holds it equal to
// what each connector says of itself.
import { Type, type TSchema } from '@sinclair/typebox';
import type { AccountType, Connector, ConnectorOptions } from './connector.ts';
import { AdyenCredentials, ADYEN_SECRETS } from './adyen/credentials.ts';
import { AuthorizeNetCredentials, AUTHORIZENET_SECRETS } from './authorizenet/credentials.ts';
import { BraintreeCredentials, BRAINTREE_SECRETS } from './braintree/credentials.ts';
import { HttpBridgeCredentials, HTTP_BRIDGE_SECRETS } from './http/credentials.ts';
import { NmiCredentials, NMI_SECRETS } from './nmi/credentials.ts';
import { StripeCredentials, STRIPE_SECRETS } from './stripe/credentials.ts';

type Create = (credentials: never, opts: ConnectorOptions) => Connector;

export interface AccountKind {
  credentials: TSchema;
  secrets: readonly string[];
  /** Absent for the sandbox. */
  create?: Create;
}

/** What the router reads from a connector before any call, known without loading it. */
interface Traits {
  idempotent: boolean;
  acceptsCards: (credentials: { rawCardData?: boolean }) => boolean;
}

const onlyWithRawCardData: Traits['acceptsCards'] = (c) => c.rawCardData === true;
const always: Traits['acceptsCards'] = () => true;

/**
 * A connector whose module is imported on its first call (once per process: later connectors
 * of the type find it loaded), and made then with the credentials it was given.
 */
export function lazyConnector(type: AccountType, traits: Traits, load: () => Promise<Create>): Create {
  return (credentials, opts) => {
    let made: Promise<Connector> | undefined;
    const real = () => (made ??= load().then((create) => create(credentials, opts)));
    return {
      type,
      idempotent: traits.idempotent,
      acceptsCards: traits.acceptsCards(credentials as { rawCardData?: boolean }),
      authorize: async (req) => (await real()).authorize(req),
      refund: async (req) => (await real()).refund(req),
      void: async (req) => (await real()).void(req),
      lookup: async (req) => (await real()).lookup(req),
      test: async () => (await real()).test(),
    };
  };
}

const SandboxCredentials = Type.Object({}, { additionalProperties: false });

export const ACCOUNT_KINDS: Partial<Record<AccountType, AccountKind>> = {
  sandbox: { credentials: SandboxCredentials, secrets: [] },
  stripe: {
    credentials: StripeCredentials,
    secrets: STRIPE_SECRETS,
    create: lazyConnector('stripe', { idempotent: true, acceptsCards: onlyWithRawCardData }, async () => (await import('./stripe/index.ts')).createStripeConnector as Create),
  },
  adyen: {
    credentials: AdyenCredentials,
    secrets: ADYEN_SECRETS,
    create: lazyConnector('adyen', { idempotent: true, acceptsCards: onlyWithRawCardData }, async () => (await import('./adyen/index.ts')).createAdyenConnector as Create),
  },
  braintree: {
    credentials: BraintreeCredentials,
    secrets: BRAINTREE_SECRETS,
    create: lazyConnector('braintree', { idempotent: false, acceptsCards: onlyWithRawCardData }, async () => (await import('./braintree/index.ts')).createBraintreeConnector as Create),
  },
  authorizenet: {
    credentials: AuthorizeNetCredentials,
    secrets: AUTHORIZENET_SECRETS,
    create: lazyConnector('authorizenet', { idempotent: false, acceptsCards: always }, async () => (await import('./authorizenet/index.ts')).createAuthorizeNetConnector as Create),
  },
  nmi: {
    credentials: NmiCredentials,
    secrets: NMI_SECRETS,
    create: lazyConnector('nmi', { idempotent: false, acceptsCards: always }, async () => (await import('./nmi/index.ts')).createNmiConnector as Create),
  },
  http: {
    credentials: HttpBridgeCredentials,
    secrets: HTTP_BRIDGE_SECRETS,
    create: lazyConnector('http', { idempotent: true, acceptsCards: always }, async () => (await import('./http/index.ts')).createHttpBridgeConnector as Create),
  },
};

export const supportedTypes = (): AccountType[] => Object.keys(ACCOUNT_KINDS) as AccountType[];
