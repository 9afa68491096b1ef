// An NMI account: its private API security key (control panel Settings → Security Keys),
// which authenticates both the Payment API (transact.php) and the Query API (query.php) as
// the `security_key` variable (NMI Payment API "Transaction Variables", and the Query API
// reference https://docs.nmi.com/reference/query-1).
// NMI needs no account-level permission to receive card numbers: its Payment API takes
// `ccnumber` on every account, so there is no flag like Stripe's `rawCardData` here and the
// connector accepts vault cards as well as Customer Vault ids.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

export const NmiCredentials = Type.Object(
  {
    securityKey: Type.String({ pattern: '^[A-Za-z0-9]{16,64}$', description: 'private API security key (32 letters and digits on secure.nmi.com)' }),
    // NMI's platform also runs under resellers' own host names with the same API (e.g. the
    // integration portal's copies at secure.networkmerchants.com): the account's host.
    gatewayUrl: Type.Optional(Type.String({ pattern: '^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?$', maxLength: 255, description: 'the gateway host when not https://secure.nmi.com (a reseller\'s white-label host)' })),
    // "If using Multiple MIDs, route to this processor (processor_id is obtained under
    // Settings → Transaction Routing in the Control Panel)": the merchant account to charge.
    processorId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'processor_id of the merchant account (MID) to route charges to' })),
    // How the first payment of a stored credential is named to NMI. NMI's Credential on File
    // guide chains an MIT with `initial_transaction_id` = NMI's own transaction id of the first
    // (customer-initiated) payment. A card network's transaction id from another platform goes
    // in `initial_network_transaction_id`, a field NMI documents only in its support article
    // "Carrying Over Network Tokens" (support.nmi.com, article 33211858912017) and enables per
    // account on TSYS and FDMS Nashville.
    storedCredentialChain: Type.Optional(Type.Union([Type.Literal('nmi_transaction_id'), Type.Literal('network_transaction_id')], {
      description: 'what subscription.schemeTransactionId holds: NMI\'s transaction id of the first payment (default) or the card network\'s id (needs NMI to enable initial_network_transaction_id)',
    })),
  },
  { additionalProperties: false },
);
export type NmiCredentials = Static<typeof NmiCredentials>;

export const NMI_SECRETS = ['securityKey'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: NmiCredentials,
  secrets: NMI_SECRETS,
  // no idempotency keys: an unknown outcome is looked up before a new call.
  idempotent: false,
  acceptsCards: () => true,
};
