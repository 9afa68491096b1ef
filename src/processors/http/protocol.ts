// The HTTP bridge protocol, version 1 (docs/gateways/http.md): one signed JSON POST per
// operation, carrying `Idempotency-Key`. The bridge answers a repeated key with its first
// answer (it is what makes an unknown outcome safe to send again). The request bodies are
// typed here and the answers checked here: an answer of any other shape is malformed.
// Fields the bridge adds to an answer are ignored (a later version may read them).
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export const BRIDGE_VERSION = 1;

export type BridgeOperation = 'authorize' | 'refund' | 'void' | 'lookup' | 'test';

interface Envelope<Op extends BridgeOperation> {
  version: typeof BRIDGE_VERSION;
  operation: Op;
  /** The same value as the Idempotency-Key header, inside the signed body. */
  idempotencyKey: string;
}

export interface BridgeCard {
  number: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  holderName?: string;
}

export interface BridgeAuthorize extends Envelope<'authorize'> {
  reference: string;
  orderId?: string;
  /** Minor units. */
  amount: number;
  /** ISO 4217 alpha-3, upper case. */
  currency: string;
  initiator: 'customer' | 'merchant';
  /** Merchant-initiated only. */
  storedCredential?: 'recurring' | 'unscheduled';
  /** Merchant-initiated only: the first payment's scheme transaction id. */
  networkTransactionId?: string;
  /** Exactly one of card and paymentMethod. */
  card?: BridgeCard;
  paymentMethod?: { id: string; customer?: string };
  /** Only to complete a CVV challenge. */
  cvv?: string;
  /** Customer-initiated only: the merchant's own 3-D Secure results. */
  threeDSecure?: { version?: string; eci?: string; authenticationValue?: string; dsTransactionId?: string };
}

export interface BridgeRefund extends Envelope<'refund'> {
  reference: string;
  processorRef: string;
  amount: number;
  currency: string;
  last4?: string;
}

export interface BridgeVoid extends Envelope<'void'> {
  reference: string;
  processorRef: string;
  currency: string;
}

export interface BridgeLookup extends Envelope<'lookup'> {
  /** The Idempotency-Key of the authorize call looked for. */
  chargeKey: string;
  reference: string;
}

export type BridgeTest = Envelope<'test'>;

export type BridgeRequest = BridgeAuthorize | BridgeRefund | BridgeVoid | BridgeLookup | BridgeTest;

export const BridgeAnswer = Type.Object({
  approved: Type.Boolean(),
  // rescued classifies an http account's decline by this code as ISO 8583 (DE39), two
  // characters; the bridge translates its gateway's code, rescued cannot.
  responseCode: Type.String({ pattern: '^[0-9A-Za-z]{2}$' }),
  adviceCode: Type.Optional(Type.String({ maxLength: 32 })),
  challenge: Type.Optional(Type.Union([Type.Literal('3ds'), Type.Literal('cvv')])),
  processorRef: Type.String({ minLength: 1, maxLength: 255 }),
  rawCode: Type.Optional(Type.String({ maxLength: 64 })),
  rawMessage: Type.Optional(Type.String({ maxLength: 255 })),
  networkTransactionId: Type.Optional(Type.String({ maxLength: 128 })),
});
export type BridgeAnswer = Static<typeof BridgeAnswer>;

export const BridgeLookupAnswer = Type.Union([Type.Object({ found: Type.Literal(false) }), Type.Intersect([Type.Object({ found: Type.Literal(true) }), BridgeAnswer])]);
export const BridgeTestAnswer = Type.Object({ ok: Type.Literal(true), message: Type.Optional(Type.String({ maxLength: 255 })) });
/** The optional body of a 4xx or 5xx: only `code` is read (a message might echo the request). */
export const BridgeError = Type.Object({ error: Type.Object({ code: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' }) }) });

export const checkAnswer = TypeCompiler.Compile(BridgeAnswer);
export const checkLookup = TypeCompiler.Compile(BridgeLookupAnswer);
export const checkTest = TypeCompiler.Compile(BridgeTestAnswer);
export const checkError = TypeCompiler.Compile(BridgeError);
