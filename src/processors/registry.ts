// Every account type: the schema of its credentials (one schema per input), which of their
// fields are secrets (masked in listings), and how its connector is made. The sandbox is the
// built-in processor (sandbox.ts), not a connector: it takes no credentials.
//
// A gateway is found by its name in the one list, src/gateways.ts: its folder here,
// `<name>/credentials.ts` exporting `gateway` (a GatewayKind: what the router reads before
// calling) and `<name>/index.ts` default-exporting the connector's factory. The credentials
// modules are loaded with this one; a connector is loaded on its first call. The gateway SDKs
// weigh on every process that imports the router, whether or not any merchant has such an
// account: @adyen/api-library alone keeps about 20 MiB of JavaScript heap
// (docs/performance.md, "Idle memory"). A connector is made synchronously, as the router needs,
// and its module is imported when a call is first made; a unit test holds what `gateway`
// states equal to what each connector says of itself.
import { Type, type TSchema } from '@sinclair/typebox';
import { GATEWAYS, SANDBOX } from '../gateways.ts';
import type { AccountType, Connector, ConnectorOptions, GatewayKind } from './connector.ts';

type Create = (credentials: never, opts: ConnectorOptions) => Connector;

export interface AccountKind {
  credentials: TSchema;
  secrets: readonly string[];
  /** Absent for the sandbox. */
  create?: Create;
  /** GatewayKind.testEnvironment: refused in production. */
  testEnvironment?: GatewayKind['testEnvironment'];
}

/** What the router reads from a connector before any call, known without loading it. */
type Traits = Pick<GatewayKind, 'idempotent' | 'acceptsCards'>;

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

/** A gateway's kind, from its folder: found by name, so adding a gateway is its folder and its name in the list. */
async function kindOf(name: AccountType): Promise<[AccountType, AccountKind]> {
  const { gateway } = (await import(`./${name}/credentials.ts`)) as { gateway: GatewayKind };
  const load = async () => ((await import(`./${name}/index.ts`)) as { default: Create }).default;
  return [name, { credentials: gateway.credentials, secrets: gateway.secrets, create: lazyConnector(name, gateway, load), ...(gateway.testEnvironment ? { testEnvironment: gateway.testEnvironment } : {}) }];
}

export const ACCOUNT_KINDS: Partial<Record<AccountType, AccountKind>> = Object.fromEntries([
  [SANDBOX, { credentials: SandboxCredentials, secrets: [] }],
  ...(await Promise.all(GATEWAYS.filter((name) => name !== SANDBOX).map(kindOf))),
]);

export const supportedTypes = (): AccountType[] => Object.keys(ACCOUNT_KINDS) as AccountType[];
