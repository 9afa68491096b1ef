// Which account charges an order (DESIGN.md §3): the one the order names, else the account of
// the gateway that declined it, else the default, else the only one; and why not, when none.
import { describe, expect, it } from 'vitest';
import { chooseAccount, type RoutableAccount } from '../../../src/processors/routing.ts';
import { orderFacts } from '../../../src/processors/order-facts.ts';

const acct = (label: string, type: RoutableAccount['type'], isDefault = false): RoutableAccount => ({ id: `id-${label}`, label, type, isDefault });
const accounts = [acct('stripe-us', 'stripe'), acct('adyen-eu', 'adyen', true), acct('stripe-eu', 'stripe'), acct('bridge', 'http')];
const facts = (request: unknown) => orderFacts(request);

describe('routing', () => {
  it('an explicit label in additionalFields wins, whatever declined', () => {
    const r = chooseAccount(accounts, facts({ additionalFields: [{ key: 'processorAccount', value: 'bridge' }], transaction: { responseCodeSource: 'Stripe' } }));
    expect(r).toEqual({ account: accounts[3], route: 'explicit' });
  });

  it('an explicit label the merchant does not have is refused, never routed elsewhere', () => {
    const r = chooseAccount(accounts, facts({ additionalFields: [{ key: 'processorAccount', value: 'paypal-1' }] }));
    expect(r).toEqual({ account: undefined, why: expect.stringContaining('"paypal-1"') });
  });

  it('else the gateway that declined, by responseCodeSource then processorName, in any spelling', () => {
    expect(chooseAccount(accounts, facts({ transaction: { responseCodeSource: 'STRIPE' } }))).toEqual({ account: accounts[0], route: 'decliner' });
    expect(chooseAccount(accounts, facts({ transaction: { responseCodeSource: 'NA', processorName: 'Adyen' } }))).toEqual({ account: accounts[1], route: 'decliner' });
    // Two accounts of the declining gateway: the default among them, else the oldest.
    const two = [acct('s1', 'stripe'), acct('s2', 'stripe', true)];
    expect(chooseAccount(two, facts({ transaction: { responseCodeSource: 'stripe' } })).account).toBe(two[1]);
  });

  it('else the default, else the only account', () => {
    expect(chooseAccount(accounts, facts({ transaction: { responseCodeSource: 'Worldpay' } }))).toEqual({ account: accounts[1], route: 'default' });
    const only = [acct('bridge', 'http')];
    expect(chooseAccount(only, facts({}))).toEqual({ account: only[0], route: 'only' });
  });

  it('no account, or several without a default, says why', () => {
    expect(chooseAccount([], facts({}))).toEqual({ account: undefined, why: 'the merchant has no processor account' });
    expect(chooseAccount([acct('a', 'nmi'), acct('b', 'braintree')], facts({}))).toEqual({ account: undefined, why: expect.stringContaining('no default') });
  });

  it('reads the stored-credential facts the connectors need, tolerating a partial request', () => {
    expect(facts({ orderId: 'A-1', isRecurring: false, subscription: { schemeTransactionId: ' 123456789012345 ' }, additionalFields: [{ key: 'processor.paymentMethod', value: 'pm_1' }, { key: '', value: 'x' }, { key: 'y', value: null }] })).toEqual({
      orderId: 'A-1', isRecurring: false, schemeTransactionId: '123456789012345', fields: { 'processor.paymentMethod': 'pm_1' },
    });
    expect(facts(null)).toEqual({ fields: {} });
  });
});
