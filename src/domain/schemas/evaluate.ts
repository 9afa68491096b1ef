// The evaluate request (spec: "Evaluate request"), the batch entry (the same shape with
// sequenceNumber required) and the batch file header. These schemas describe the canonical
// form: normalise.ts maps spelling variants, nulls, numeric strings and dates onto it
// before validation, so one compiled validator serves HTTP and the batch reader.
import { Type, type Static } from '@sinclair/typebox';
import { DateTimeUtc, LenientInteger, OptionalText, Text, Uuid } from './fields.ts';
import {
  AdditionalFieldSchema, AffiliateSchema, BillingInformationSchema, MerchantSchema, OrderItemSchema,
  PayerSchema, PaymentMethodSchema, ShippingInformationSchema, SubscriptionSchema, ThreeDSecureSchema,
  TransactionSchema,
} from './objects.ts';

export const ORDER_SOURCES = ['ecommerce', 'terminal', 'vterminal', 'installment'] as const;

const evaluateProperties = {
  isDeclined: Type.Boolean(),
  mid: Type.Optional(Uuid({ description: 'Merchant identification number (GUID); for partner integrations.' })),
  orderId: Text({ description: "Merchant's own order id, unique per merchant." }),
  siteId: Uuid(),
  siteUrl: OptionalText(),
  // Not an enum: an unknown value is kept and reported as a warning (rules.ts).
  orderSource: Type.Optional(Type.String({ maxLength: 32, description: `One of ${ORDER_SOURCES.join(', ')}; default ecommerce.` })),
  idempotencyKey: Uuid(),
  senseKey: OptionalText(),
  sequenceNumber: Type.Optional(LenientInteger({ minimum: 1, description: 'Position in the batch, from 1.' })),
  isMIT: Type.Boolean(),
  isRecurring: Type.Optional(Type.Boolean({ description: 'Required when isMIT is true.' })),
  expiryDateUtc: Type.Optional(DateTimeUtc({ description: 'Required when isMIT is true.' })),
  subscription: Type.Optional(SubscriptionSchema),
  threeDSecure: Type.Optional(ThreeDSecureSchema),
  transaction: TransactionSchema,
  payer: PayerSchema,
  billingInformation: BillingInformationSchema,
  paymentMethod: PaymentMethodSchema,
  shippingInformation: Type.Optional(ShippingInformationSchema),
  merchant: Type.Optional(MerchantSchema),
  affiliate: Type.Optional(AffiliateSchema),
  orderItems: Type.Optional(Type.Array(OrderItemSchema)),
  additionalFields: Type.Optional(Type.Array(AdditionalFieldSchema, { maxItems: 100 })),
};

export const EvaluateRequestSchema = Type.Object(evaluateProperties, { $id: 'EvaluateRequest' });

export const BatchEntrySchema = Type.Object(
  { ...evaluateProperties, sequenceNumber: LenientInteger({ minimum: 1, description: 'Position in the batch, from 1.' }) },
  { $id: 'BatchEntry' },
);

// `requests` is not part of the header schema: the batch reader streams it entry by entry.
export const BatchHeaderSchema = Type.Object(
  {
    mid: Uuid({ description: 'Merchant identification number (GUID).' }),
    authorizationToken: Type.String({ format: 'bearer-token', maxLength: 4096, description: 'The access token; a "Bearer " prefix is removed.' }),
    expiryDateUtc: Type.Optional(DateTimeUtc({ description: 'Default expiry for entries that carry none.' })),
  },
  { $id: 'BatchHeader' },
);

export type EvaluateRequest = Static<typeof EvaluateRequestSchema>;
export type BatchEntry = Static<typeof BatchEntrySchema>;
export type BatchHeader = Static<typeof BatchHeaderSchema>;
export type OrderSource = (typeof ORDER_SOURCES)[number];
