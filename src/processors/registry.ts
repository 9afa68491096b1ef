// Every account type: the schema of its credentials (one schema per input), which of their
// fields are secrets (masked in listings), and how its connector is made. The sandbox is the
// built-in processor (sandbox.ts), not a connector: it takes no credentials.
import { Type, type TSchema } from '@sinclair/typebox';
import type { AccountType, Connector, ConnectorOptions } from './connector.ts';
import { AdyenCredentials, ADYEN_SECRETS } from './adyen/credentials.ts';
import { createAdyenConnector } from './adyen/index.ts';
import { AuthorizeNetCredentials, AUTHORIZENET_SECRETS } from './authorizenet/credentials.ts';
import { createAuthorizeNetConnector } from './authorizenet/index.ts';
import { BraintreeCredentials, BRAINTREE_SECRETS } from './braintree/credentials.ts';
import { createBraintreeConnector } from './braintree/index.ts';
import { HttpBridgeCredentials, HTTP_BRIDGE_SECRETS } from './http/credentials.ts';
import { createHttpBridgeConnector } from './http/index.ts';
import { NmiCredentials, NMI_SECRETS } from './nmi/credentials.ts';
import { createNmiConnector } from './nmi/index.ts';
import { StripeCredentials, STRIPE_SECRETS } from './stripe/credentials.ts';
import { createStripeConnector } from './stripe/index.ts';

export interface AccountKind {
  credentials: TSchema;
  secrets: readonly string[];
  /** Absent for the sandbox. */
  create?: (credentials: never, opts: ConnectorOptions) => Connector;
}

const SandboxCredentials = Type.Object({}, { additionalProperties: false });

export const ACCOUNT_KINDS: Partial<Record<AccountType, AccountKind>> = {
  sandbox: { credentials: SandboxCredentials, secrets: [] },
  stripe: { credentials: StripeCredentials, secrets: STRIPE_SECRETS, create: createStripeConnector as AccountKind['create'] },
  adyen: { credentials: AdyenCredentials, secrets: ADYEN_SECRETS, create: createAdyenConnector as AccountKind['create'] },
  braintree: { credentials: BraintreeCredentials, secrets: BRAINTREE_SECRETS, create: createBraintreeConnector as AccountKind['create'] },
  authorizenet: { credentials: AuthorizeNetCredentials, secrets: AUTHORIZENET_SECRETS, create: createAuthorizeNetConnector as AccountKind['create'] },
  nmi: { credentials: NmiCredentials, secrets: NMI_SECRETS, create: createNmiConnector as AccountKind['create'] },
  http: { credentials: HttpBridgeCredentials, secrets: HTTP_BRIDGE_SECRETS, create: createHttpBridgeConnector as AccountKind['create'] },
};

export const supportedTypes = (): AccountType[] => Object.keys(ACCOUNT_KINDS) as AccountType[];
