// A sample of rows per table, read through classifyDecline so the source mapping is exercised
// too. The brand is AMEX so no network rule (Visa category, Mastercard advice) colours a row.
import { describe, expect, it } from 'vitest';
import { classifyDecline, tableClassOf } from '../../../src/declines/classify.ts';
import { TABLE_CLASSES } from '../../../src/declines/reasons.ts';
import { ISO8583_CODES } from '../../../src/declines/iso8583.ts';
import { STRIPE_CODES } from '../../../src/declines/tables/stripe.ts';
import { BRAINTREE_CODES } from '../../../src/declines/tables/braintree.ts';
import { ADYEN_CODES } from '../../../src/declines/tables/adyen.ts';
import { NMI_CODES } from '../../../src/declines/tables/nmi.ts';
import { AUTHORIZENET_CODES } from '../../../src/declines/tables/authorizenet.ts';
import { CHECKOUTCOM_CODES } from '../../../src/declines/tables/checkoutcom.ts';

type Case = [source: string, code: string, reason: string, cls: string];

function expectRow([source, code, reason, cls]: Case) {
  const c = classifyDecline({ responseCodeSource: source, responseCode: code, cardBrand: 'AMEX' });
  expect({ source, code, reason: c.reason, cls: tableClassOf(c) }).toEqual({ source, code, reason, cls });
}

describe('ISO 8583 (card-networks.md)', () => {
  const rows: Case[] = [
    ['ISO8583', '05', 'do_not_honor', 'soft-generic'],
    ['ISO', '14', 'invalid_card_number', 'hard'],
    ['iso', '41', 'lost_or_stolen', 'hard'],
    ['ISO', '43', 'lost_or_stolen', 'hard'],
    ['ISO', '46', 'closed_account', 'hard'],
    ['ISO', '51', 'insufficient_funds', 'soft-funds'],
    ['ISO', '54', 'expired_card', 'data'],
    ['ISO', '57', 'transaction_not_permitted', 'hard'],
    ['ISO', '59', 'suspected_fraud', 'hard'],
    ['ISO', '61', 'limit_exceeded', 'soft-funds'],
    ['ISO', '65', 'limit_exceeded', 'soft-funds'],
    ['ISO', '62', 'restricted_card', 'soft-generic'],
    ['ISO', '91', 'issuer_unavailable', 'soft-temporary'],
    ['ISO', '96', 'processing_error', 'soft-temporary'],
    ['ISO', 'N7', 'cvv_failure', 'data'],
    ['ISO', '1A', 'authentication_required', 'data'],
    ['ISO', 'R1', 'stop_payment', 'hard'],
    ['ISO', '5', 'do_not_honor', 'soft-generic'], // one digit is padded
    ['ISO', 'n7', 'cvv_failure', 'data'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('Stripe decline_code (§1)', () => {
  const rows: Case[] = [
    ['Stripe', 'insufficient_funds', 'insufficient_funds', 'soft-funds'],
    ['stripe', 'card_velocity_exceeded', 'limit_exceeded', 'soft-funds'],
    ['STRIPE', 'do_not_honor', 'do_not_honor', 'soft-generic'],
    ['Stripe', 'issuer_not_available', 'issuer_unavailable', 'soft-temporary'],
    ['Stripe', 'expired_card', 'expired_card', 'data'],
    ['Stripe', 'incorrect_cvc', 'cvv_failure', 'data'],
    ['Stripe', 'authentication_required', 'authentication_required', 'data'],
    ['Stripe', 'lost_card', 'lost_or_stolen', 'hard'],
    ['Stripe', 'fraudulent', 'suspected_fraud', 'hard'],
    ['Stripe', 'restricted_card', 'restricted_card', 'hard'],
    ['Stripe', 'revocation_of_all_authorizations', 'stop_payment', 'hard'],
    ['Stripe', 'merchant_blacklist', 'merchant_side', 'hard'],
    ['Stripe', 'duplicate_transaction', 'duplicate', 'soft-generic'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('Braintree (§2)', () => {
  const rows: Case[] = [
    ['Braintree', '2000', 'do_not_honor', 'soft-generic'],
    ['braintree', '2001', 'insufficient_funds', 'soft-funds'],
    ['Braintree', '2004', 'expired_card', 'data'],
    ['Braintree', '2007', 'invalid_account', 'hard'],
    ['Braintree', '2010', 'cvv_failure', 'data'],
    ['Braintree', '2013', 'lost_or_stolen', 'hard'],
    ['Braintree', '2017', 'stop_payment', 'hard'],
    ['Braintree', '2038', 'generic_decline', 'soft-generic'],
    ['Braintree', '2057', 'restricted_card', 'soft-generic'],
    ['Braintree', '2099', 'authentication_required', 'data'],
    ['Braintree', '2107', 'card_not_activated', 'soft-generic'],
    ['Braintree', '2500', 'generic_decline', 'soft-generic'], // 2109–2999 range
    ['Braintree', '3000', 'issuer_unavailable', 'soft-temporary'],
    ['Braintree', 'risk_threshold', 'merchant_side', 'hard'],
    ['Braintree', 'application_incomplete', 'merchant_side', 'soft-temporary'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('Adyen (§3)', () => {
  const rows: Case[] = [
    ['Adyen', '2', 'generic_decline', 'soft-generic'],
    ['adyen', '5', 'blocked_card', 'hard'],
    ['Adyen', '6', 'expired_card', 'data'],
    ['Adyen', '9', 'issuer_unavailable', 'soft-temporary'],
    ['Adyen', '12', 'insufficient_funds', 'soft-funds'],
    ['Adyen', '24', 'cvv_failure', 'data'],
    ['Adyen', '25', 'restricted_card', 'soft-generic'],
    ['Adyen', '26', 'stop_payment', 'hard'],
    ['Adyen', '31', 'suspected_fraud', 'hard'],
    ['Adyen', '46', 'excessive_retries', 'hard'],
    ['Adyen', 'Not enough balance', 'insufficient_funds', 'soft-funds'], // refusalReason text
    ['Adyen', '3D Not Authenticated', 'authentication_required', 'data'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('NMI (§4)', () => {
  const rows: Case[] = [
    ['NMI', '201', 'do_not_honor', 'soft-generic'],
    ['nmi', '202', 'insufficient_funds', 'soft-funds'],
    ['NMI', '204', 'transaction_not_permitted', 'hard'],
    ['NMI', '223', 'expired_card', 'data'],
    ['NMI', '251', 'lost_or_stolen', 'hard'],
    ['NMI', '261', 'stop_payment', 'hard'],
    ['NMI', '264', 'try_again_later', 'soft-generic'],
    ['NMI', '421', 'issuer_unavailable', 'soft-temporary'],
    ['NMI', '461', 'card_not_supported', 'hard'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('Authorize.Net (§5)', () => {
  const rows: Case[] = [
    ['Authorize.Net', '2', 'generic_decline', 'soft-generic'],
    ['authorizenet', '4', 'pickup_card', 'hard'],
    ['authnet', '8', 'expired_card', 'data'],
    ['Authorize.net', '11', 'duplicate', 'soft-generic'],
    ['Authorize.Net', '27', 'avs_failure', 'data'],
    ['Authorize.Net', '44', 'cvv_failure', 'data'],
    ['Authorize.Net', '60', 'processing_error', 'soft-temporary'],
    ['Authorize.Net', '252', 'pending_review', 'hard'],
    ['Authorize.Net', '901', 'processing_error', 'soft-temporary'],
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('Checkout.com (§6)', () => {
  const rows: Case[] = [
    ['Checkout.com', '20005', 'do_not_honor', 'soft-generic'],
    ['checkout', '20051', 'insufficient_funds', 'soft-funds'],
    ['Checkout.com', '20054', 'expired_card', 'data'],
    ['Checkout.com', '20059', 'suspected_fraud', 'hard'],
    ['Checkout.com', '20091', 'issuer_unavailable', 'soft-temporary'],
    ['Checkout.com', '200R1', 'stop_payment', 'hard'],
    ['Checkout.com', '30041', 'lost_or_stolen', 'hard'],
    ['Checkout.com', '40101', 'merchant_side', 'hard'], // 40xxx: our risk settings
    ['Checkout.com', '20099', 'generic_decline', 'soft-generic'], // 20xxx range
    ['Checkout.com', '30099', 'generic_decline', 'hard'], // 30xxx range
  ];
  it.each(rows)('%s %s → %s %s', (...row) => expectRow(row));
});

describe('every table row', () => {
  const tables: Record<string, Record<string, readonly unknown[]>> = {
    ISO8583_CODES, STRIPE_CODES, BRAINTREE_CODES, ADYEN_CODES, NMI_CODES, AUTHORIZENET_CODES, CHECKOUTCOM_CODES,
  };
  it('uses the reference vocabulary for its class', () => {
    for (const [name, table] of Object.entries(tables)) {
      for (const [code, row] of Object.entries(table)) {
        expect(TABLE_CLASSES, `${name} ${code}`).toContain(row[1]);
      }
    }
  });
});
