// The one list of the gateways rescued charges through. Each name is an account type
// (`rescued processor add --type`); the processor accounts table's type, the CLI's help and
// the API's description are read from here, and a name's connector is the folder of the same
// name, src/processors/<name>/, found by it (src/processors/registry.ts). A gateway whose
// declines have a table (src/declines/tables/) keeps the same name, so routing to the gateway
// that declined finds its accounts. Adding a gateway: docs/development.md.
// On the base floor (.config/layers.mjs) because the database schema, below every stage, names
// the types.

export const GATEWAYS = ['sandbox', 'stripe', 'adyen', 'braintree', 'authorizenet', 'nmi', 'http'] as const;
export type Gateway = (typeof GATEWAYS)[number];

/** The built-in processor: it charges only the sandbox's test cards, and only in sandbox mode. */
export const SANDBOX = 'sandbox' satisfies Gateway;

/** The gateways with connectors, for help text: "stripe, adyen, …, http". */
export const connectorNames = (): string => GATEWAYS.filter((g) => g !== SANDBOX).join(', ');
