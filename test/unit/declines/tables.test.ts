// Each gateway's decline table answers a code with its row and its ISO 8583 code at once
// (src/declines/table.ts): the connectors show that ISO code, the classifier reads the row,
// and a table is found by its name and its aliases.
import { describe, expect, it } from 'vitest';
import * as TABLES from '../../../src/declines/tables/index.ts';
import { gatewayOf, isoCodeFor, lookupCode } from '../../../src/declines/sources.ts';

describe('decline tables', () => {
  it('are each listed under their own name, and each alias names its table', () => {
    for (const [key, table] of Object.entries(TABLES)) {
      expect(table.name).toBe(key);
      for (const alias of [table.name, ...table.aliases]) expect(gatewayOf(alias), alias).toBe(key);
    }
  });

  it('answer a code with its row and the ISO code of its canonical reason', () => {
    expect(TABLES.stripe.lookup('insufficient_funds')).toEqual({ row: ['insufficient_funds', 'soft-funds'], iso: '51' });
    expect(TABLES.adyen.lookup('Not enough balance')).toEqual({ row: ['insufficient_funds', 'soft-funds'], iso: '51' });
    expect(TABLES.braintree.lookup('2005')).toEqual({ row: ['invalid_card_number', 'data'], iso: '14' });
    // A reason without a code of its own shows 05, do not honor.
    expect(TABLES.authorizenet.lookup('252')).toEqual({ row: ['pending_review', 'hard'], iso: '05' });
    expect(TABLES.nmi.lookup('999999')).toBeUndefined();
  });

  it('answer with the raw scheme code where the gateway documents one (Checkout.com), and classify by it', () => {
    expect(TABLES.checkoutcom.lookup('20054')).toEqual({ row: ['expired_card', 'data'], iso: '54', networkCode: '54' });
    expect(TABLES.checkoutcom.lookup('20087')).toEqual({ row: ['cvv_failure', 'data'], iso: 'N7' });
    expect(TABLES.checkoutcom.lookup('30099')).toEqual({ row: ['generic_decline', 'hard'], iso: '99', networkCode: '99' });
    expect(lookupCode('cko', '20054')).toEqual({ source: 'checkoutcom', code: '20054', row: ['expired_card', 'data'], impliedIso: '54' });
    expect(lookupCode('Stripe', 'expired_card')).toEqual({ source: 'stripe', code: 'expired_card', row: ['expired_card', 'data'] });
  });

  it('give a connector the ISO code of its gateway\'s own code, 05 when the table does not know it', () => {
    expect(isoCodeFor('stripe', 'card_velocity_exceeded')).toBe('61');
    expect(isoCodeFor('adyen', '6')).toBe('54');
    expect(isoCodeFor('nmi', '999999')).toBe('05');
    expect(isoCodeFor('braintree', undefined)).toBe('05');
  });
});
