// The nested objects of the evaluate request, one schema each, field for field as the spec
// lists them (spec/interface.md, "Resources and their fields"). A field the spec marks
// "required if provided" is required here: the object's own schema only applies when the
// object is present. Conditional requirements between objects live in rules.ts.
import { Type, type Static } from '@sinclair/typebox';
import { AdviceCode, CountryCode, CurrencyCode, DateTimeUtc, LenientInteger, OptionalText, State, Text, Zipcode } from './fields.ts';

/** The longest list of the merchant's own earlier attempts an order may carry. */
export const MAX_PRIOR_ATTEMPTS = 50;
/** At most this many other cards of the payer named by one order (payer.otherCardTokens). */
export const MAX_OTHER_CARDS = 10;

/** One of the merchant's own attempts on the order before it handed the decline over. */
export const PriorAttemptSchema = Type.Object({
  timestampUtc: DateTimeUtc({ description: 'When the attempt was made; not after transaction.timestampUtc.' }),
  responseCode: Text({ description: 'The response code it got, from the same source as transaction.responseCodeSource.' }),
  merchantAdviceCode: AdviceCode(),
});

export const TransactionSchema = Type.Object({
  id: Text({ description: 'External transaction identifier (a gateway id; not checked as a GUID).' }),
  dynamicDescriptor: OptionalText(),
  timestampUtc: DateTimeUtc({ description: 'When the decline happened (UTC). A past event: a time more than api.clockSkewSeconds (default 300) ahead of the server\'s clock is refused with ERR_MODEL_TIME_IN_FUTURE.' }),
  // No bound: the spec gives no unit (hours, minutes and seconds are all seen in the wild).
  timezoneUtcOffset: Type.Integer(),
  transactionType: OptionalText(),
  amount: Type.Integer({ exclusiveMinimum: 0, exclusiveMaximum: 20000, description: 'Amount in cents.' }),
  currency: CurrencyCode(),
  responseCode: Text(),
  responseDescription: OptionalText(),
  responseStatus: OptionalText(),
  responseSubStatus: OptionalText(),
  responseCodeSource: Text({ description: 'Gateway name, or NA.' }),
  processorName: OptionalText(),
  avsResultCode: Text(),
  cvvResultCode: Text(),
  cavvResultCode: Text({ description: 'CAVV result, or NA.' }),
  cardNotPresent: Type.Boolean(),
  // Not in the spec's listing: what the card networks count (docs/engine.md, "What the card's windows count").
  merchantAdviceCode: AdviceCode({ description: "The Mastercard Merchant Advice Code of this (the original) decline: 03 and 21 end the order at once, 24–30 delay the first retry from transaction.timestampUtc." }),
  priorAttempts: Type.Optional(Type.Array(PriorAttemptSchema, {
    maxItems: MAX_PRIOR_ATTEMPTS,
    description: `The merchant's own earlier attempts on this order, before this decline (at most ${MAX_PRIOR_ATTEMPTS}): they count in the card's network windows, and a MAC 03 or 21 among them ends the order.`,
  })),
});

export const PayerSchema = Type.Object({
  email: Type.String({ format: 'email-or-na', maxLength: 254, description: 'Email address, or NA (then phone is required).' }),
  phone: OptionalText(),
  id: OptionalText(),
  birthdate: Type.Optional(Type.String({ format: 'date', maxLength: 10, description: 'YYYY-MM-DD; a date after today is refused with ERR_MODEL_TIME_IN_FUTURE.' })),
  // Not in the spec: the payer's other cards in the vault, which an order whose card ends hard
  // may continue on when the merchant opted in (docs/engine.md, "The payer's other cards").
  otherCardTokens: Type.Optional(Type.Array(Type.String({ format: 'card-token', maxLength: 36 }), {
    maxItems: MAX_OTHER_CARDS,
    description: `Vault tokens (from /v1/tokenize) of the payer's other cards at this merchant, the preferred first (at most ${MAX_OTHER_CARDS}, no repeats, not the order's own card). Used only when the merchant opted in to the cascade; a token of another merchant is never charged.`,
  })),
});

export const AffiliateSchema = Type.Object({
  id: OptionalText(),
  name: OptionalText(),
});

// Billing and shipping addresses have the same fields; what differs (state required for US
// cards on billing) is a cross-field rule in rules.ts.
const addressFields = () => ({
  firstName: Text(),
  lastName: Text(),
  phone: OptionalText(),
  country: Text(),
  countryCode: CountryCode(),
  addressLine1: Text(),
  addressLine2: OptionalText(),
  state: State(),
  city: Text(),
  zipcode: Zipcode(),
});

export const BillingInformationSchema = Type.Object(addressFields());

export const PaymentMethodSchema = Type.Object({
  holderName: Text(),
  cardType: Text(),
  cardBrand: Text(),
  cardCountry: CountryCode(),
  cardIssuer: OptionalText(),
  cardLevel: OptionalText(),
  cardFingerprint: OptionalText(),
  expirationMonth: Type.Integer({ minimum: 1, maximum: 12 }),
  expirationYear: Type.Integer({ minimum: 1000, maximum: 9999, description: 'Four digits.' }),
  cardBinNumber: Type.String({ format: 'card-bin', maxLength: 8 }),
  cardLast4Digits: Type.String({ format: 'card-last4', maxLength: 4 }),
  cardNumber: Text({ description: 'The token from tokenize; the full number only when token is false.' }),
  token: Type.Optional(Type.Boolean()),
});

export const MerchantSchema = Type.Object({
  id: Text(),
  name: OptionalText(),
  mcc: Type.Integer({ minimum: 0, maximum: 9999, description: 'ISO 18245 merchant category code.' }),
  country: Text(),
});

export const SubscriptionSchema = Type.Object({
  subscriptionId: Text(),
  schemeTransactionId: Text(),
  schemeBrand: Text(),
  interval: Text(),
  price: LenientInteger({ minimum: 0, description: 'Amount in cents.' }),
  currency: CurrencyCode(),
  paymentNumber: OptionalText(),
  totalPayments: OptionalText(),
});

export const ThreeDSecureSchema = Type.Object({
  threeDsVersion: OptionalText(),
  ecommerceIndicator: Text(),
  authenticationValue: Text(),
  directoryServerTransactionId: Text(),
  xid: OptionalText(),
  authenticationValueAlgorithm: OptionalText(),
  directoryResponseStatus: OptionalText(),
  authenticationResponseStatus: OptionalText(),
  enrolled: OptionalText(),
});

export const OrderItemSchema = Type.Object({
  sku: OptionalText(),
  name: OptionalText(),
  description: OptionalText(),
  amount: Type.Optional(Type.Integer()),
  discountAmount: Type.Optional(Type.Integer()),
  tax: Type.Optional(Type.Integer()),
  discountType: OptionalText(),
  quantity: Type.Optional(LenientInteger()),
});

export const ShippingInformationSchema = Type.Object(addressFields());

export const AdditionalFieldSchema = Type.Object({
  key: OptionalText(),
  value: OptionalText({ maxLength: 1024 }),
});

export type Transaction = Static<typeof TransactionSchema>;
export type PriorAttempt = Static<typeof PriorAttemptSchema>;
export type Payer = Static<typeof PayerSchema>;
export type Affiliate = Static<typeof AffiliateSchema>;
export type BillingInformation = Static<typeof BillingInformationSchema>;
export type PaymentMethod = Static<typeof PaymentMethodSchema>;
export type Merchant = Static<typeof MerchantSchema>;
export type Subscription = Static<typeof SubscriptionSchema>;
export type ThreeDSecure = Static<typeof ThreeDSecureSchema>;
export type OrderItem = Static<typeof OrderItemSchema>;
export type ShippingInformation = Static<typeof ShippingInformationSchema>;
export type AdditionalField = Static<typeof AdditionalFieldSchema>;
