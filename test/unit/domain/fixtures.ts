// Realistic requests for the model's tests and benchmark: sandbox-style card data only
// (BIN 411111, last four 1111, the card number a token). Each builder returns a fresh
// object so a test may change it freely.

/** A complete customer-initiated (real-time) evaluate request, canonical spelling. */
export function citRequest(): Record<string, unknown> {
  return {
    isDeclined: true,
    mid: '6f1c2a7e-9b3d-4c5e-8f10-2a3b4c5d6e7f',
    orderId: 'ORD-2026-000123',
    siteId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    siteUrl: 'https://shop.example.com',
    orderSource: 'ecommerce',
    idempotencyKey: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    senseKey: 'sk_5d41402abc4b2a76b9719d911017c592',
    isMIT: false,
    transaction: {
      id: 'ch_3PZk2mLkdIwHu7ix0abc1234',
      timestampUtc: '2026-11-20T14:05:09.000Z',
      timezoneUtcOffset: -5,
      transactionType: 'AUTHORIZE',
      amount: 4999,
      currency: 'USD',
      responseCode: '51',
      responseDescription: 'Insufficient funds',
      responseStatus: 'DECLINED',
      responseCodeSource: 'stripe',
      processorName: 'stripe',
      avsResultCode: 'Y',
      cvvResultCode: 'M',
      cavvResultCode: 'NA',
      cardNotPresent: true,
    },
    payer: { email: 'jane.doe@example.com', phone: '+1 555 0100', id: 'cus_1001', birthdate: '1990-05-01' },
    affiliate: { id: 'aff-77', name: 'Spring newsletter' },
    merchant: { id: 'm-1001', name: 'Example Shop', mcc: 5968, country: 'US' },
    billingInformation: {
      firstName: 'Jane',
      lastName: 'Doe',
      phone: '+1 555 0100',
      country: 'United States',
      countryCode: 'US',
      addressLine1: '1 Main Street',
      addressLine2: 'Apt 4',
      state: 'NY',
      city: 'New York',
      zipcode: '10001',
    },
    paymentMethod: {
      holderName: 'Jane Doe',
      cardType: 'Credit',
      cardBrand: 'VISA',
      cardCountry: 'US',
      cardIssuer: 'Test Bank',
      expirationMonth: 12,
      expirationYear: 2029,
      cardBinNumber: '411111',
      cardLast4Digits: '1111',
      cardNumber: 'tok_9f2c1e5a7b3d4e6f8a0b',
      token: true,
    },
    shippingInformation: {
      firstName: 'Jane',
      lastName: 'Doe',
      country: 'United States',
      countryCode: 'US',
      addressLine1: '1 Main Street',
      city: 'New York',
      state: 'NY',
      zipcode: '10001-2345',
    },
    orderItems: [
      { sku: 'SKU-1', name: 'Monthly box', amount: 3999, quantity: 1, tax: 0 },
      { sku: 'SKU-2', name: 'Shipping', amount: 1000, quantity: 1 },
    ],
    additionalFields: [{ key: 'campaign', value: 'spring' }],
  };
}

/** A complete merchant-initiated recurring evaluate request (a subscription rebill). */
export function mitRequest(): Record<string, unknown> {
  const req = citRequest();
  return {
    ...req,
    orderId: 'ORD-2026-000124',
    idempotencyKey: '3b241101-e2bb-4255-8caf-4136c566a962',
    isMIT: true,
    isRecurring: true,
    expiryDateUtc: '2026-12-07T00:00:00.000Z',
    transaction: { ...(req.transaction as object), transactionType: 'CAPTURE', amount: 1999 },
    subscription: {
      subscriptionId: 'sub_1001',
      schemeTransactionId: '483297487231504',
      schemeBrand: 'VISA',
      interval: 'monthly',
      price: 1999,
      currency: 'USD',
      paymentNumber: '3',
      totalPayments: '12',
    },
    threeDSecure: {
      threeDsVersion: '2.2.0',
      ecommerceIndicator: '05',
      authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=',
      directoryServerTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
    },
  };
}

/**
 * A batch entry written the way the spec's batch layout writes it: IsDeclined, SiteUrl,
 * capitalised ExpirationMonth/ExpirationYear, zipCode, a country name in cardCountry, a
 * numeric sequenceNumber, and null where the client has nothing.
 */
export function layoutEntry(): Record<string, unknown> {
  const mit = mitRequest();
  const { isDeclined: _d, siteUrl: _s, ...rest } = mit;
  const pm = mit.paymentMethod as Record<string, unknown>;
  const billing = mit.billingInformation as Record<string, unknown>;
  const { expirationMonth, expirationYear, cardCountry: _c, ...pmRest } = pm;
  const { zipcode, ...billingRest } = billing;
  return {
    sequenceNumber: 1,
    IsDeclined: true,
    SiteUrl: 'https://shop.example.com',
    ...rest,
    expiryDateUtc: null,
    billingInformation: { ...billingRest, zipCode: zipcode, addressLine2: null },
    paymentMethod: { ...pmRest, ExpirationMonth: expirationMonth, ExpirationYear: expirationYear, cardCountry: 'United States' },
  };
}

/** A batch header as the layout shows it. */
export function batchHeader(): Record<string, unknown> {
  return {
    mid: '6f1c2a7e-9b3d-4c5e-8f10-2a3b4c5d6e7f',
    authorizationToken: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZXJjaGFudCJ9.c2lnbmF0dXJl',
    expiryDateUtc: 'Tue, 01 Dec 2026 00:00:00 GMT',
  };
}

/** A tokenize request with a sandbox test card. */
export function tokenizeRequest(): Record<string, unknown> {
  return {
    payment_method: {
      sense_key: 'sk_5d41402abc4b2a76b9719d911017c592',
      credit_card: {
        first_name: 'Jane',
        last_name: 'Doe',
        number: '4111111111111111',
        verification_value: '123',
        month: '12',
        year: '2029',
      },
    },
  };
}
