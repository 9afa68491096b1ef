// Which of a merchant's accounts charges an order (DESIGN.md §3): the account the order names
// (additionalFields processorAccount), else the account of the gateway that declined it
// (transaction.responseCodeSource / processorName), else the merchant's default (or its only
// account). Pure: the router hands in the accounts.
import { gatewayOf } from '../declines/sources.ts';
import type { AccountType } from './connector.ts';
import { FIELD_ACCOUNT } from './order-facts.ts';
import type { OrderFacts, Route } from './types.ts';

export interface RoutableAccount {
  id: string;
  type: AccountType;
  label: string;
  isDefault: boolean;
}

export type RouteDecision<A extends RoutableAccount> = { account: A; route: Route } | { account: undefined; why: string };

export function chooseAccount<A extends RoutableAccount>(accounts: A[], facts: OrderFacts | undefined): RouteDecision<A> {
  const named = facts?.fields[FIELD_ACCOUNT];
  if (named !== undefined) {
    const account = accounts.find((a) => a.label === named);
    return account ? { account, route: 'explicit' } : { account: undefined, why: `additionalFields processorAccount names "${named.slice(0, 64)}", which this merchant does not have` };
  }
  for (const source of [facts?.declineSource, facts?.processorName]) {
    const type = source ? (gatewayOf(source) as AccountType | undefined) : undefined;
    const matches = type ? accounts.filter((a) => a.type === type) : [];
    // Two accounts of the declining gateway: the default among them, else the oldest.
    if (matches.length > 0) return { account: matches.find((a) => a.isDefault) ?? matches[0]!, route: 'decliner' };
  }
  const fallback = accounts.find((a) => a.isDefault);
  if (fallback) return { account: fallback, route: 'default' };
  if (accounts.length === 1) return { account: accounts[0]!, route: 'only' };
  return { account: undefined, why: accounts.length === 0 ? 'the merchant has no processor account' : 'the merchant has several processor accounts and no default' };
}
