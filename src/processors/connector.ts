// The contract of a gateway connector (DESIGN.md §3 "Processors"): a translation, nothing
// more. Our attempt becomes the gateway's request, with its stored-credential / MIT fields
// and the network transaction id; the gateway's answer becomes an ISO response code, an
// advice code and a canonical reason, the raw code kept. Money safety (idempotency keys,
// unknown outcomes, reconciliation) lives outside the connectors, in the router and the
// engine; a connector only says, by the error it throws, whether a failed call may have
// reached the gateway.
import type { TSchema } from '@sinclair/typebox';
import { GATEWAYS, type Gateway } from '../gateways.ts';

/** An account's type: one of the gateways (src/gateways.ts). */
export const ACCOUNT_TYPES = GATEWAYS;
export type AccountType = Gateway;

/** The card from rescued's vault, opened for one call; never logged, never stored elsewhere. */
export interface CardData {
  number: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  holderName?: string;
}

/** A payment method the gateway itself stores (additionalFields processor.paymentMethod / processor.customer). */
export interface GatewayMethod {
  paymentMethod: string;
  customer?: string;
}

/** One charge, as every connector receives it. */
export interface ChargeRequest {
  /** `<orderSessionKey>:<attemptNo>`: the gateway's idempotency key, or its order reference where it has none. */
  idempotencyKey: string;
  /** The order (orderSessionKey). */
  reference: string;
  /** The merchant's own orderId, for the gateway's reports. */
  orderId?: string;
  /** Minor units. */
  amount: number;
  currency: string;
  /** Exactly one of card and gatewayMethod. */
  card?: CardData;
  gatewayMethod?: GatewayMethod;
  initiator: 'customer' | 'merchant';
  /** Merchant-initiated: on a schedule (a subscription) or unscheduled (card on file). */
  storedCredential?: 'recurring' | 'unscheduled';
  /** The network transaction id of the first payment of the stored credential. */
  networkTransactionId?: string;
  /** Given to complete a challenge: sent once, never stored. */
  cvv?: string;
  /** 3-D Secure results from the merchant's own authentication, passed through. */
  threeDSecure?: ThreeDSecureData;
}

export interface ThreeDSecureData {
  version?: string;
  eci?: string;
  authenticationValue?: string;
  dsTransactionId?: string;
}

export interface RefundCall {
  idempotencyKey: string;
  reference: string;
  /** The gateway's reference of the charge. */
  processorRef: string;
  amount: number;
  currency: string;
  /** Some gateways (Authorize.Net) need the card's last four to refund. */
  last4?: string;
}

/** A gateway's answer, translated. */
export interface GatewayAnswer {
  approved: boolean;
  /** ISO 8583 response code ('00' approved); the gateway's raw code mapped where it has none. */
  responseCode: string;
  /** Mastercard merchant advice code or the gateway's advice, when it sent one. */
  adviceCode?: string;
  /** A customer-initiated attempt the issuer wants authenticated or re-entered. */
  challenge?: '3ds' | 'cvv';
  /** The gateway's reference of the charge (its id). */
  processorRef: string;
  /** The gateway's own code and message, as sent (for the attempt and the classification tables). */
  rawCode?: string;
  rawMessage?: string;
  networkTransactionId?: string;
  /**
   * The gateway's account updater changed the card during this call (Stripe's automatic card
   * updates, Adyen's real-time account updater): what it learned. The engine records it, charges
   * the updated credential from then on and counts it under its own network counters.
   */
  cardUpdate?: {
    /** `expiry`: same card, new expiry; `replacement`: a new card number; `closed`: no usable card. */
    kind: 'expiry' | 'replacement' | 'closed';
    expMonth?: number;
    expYear?: number;
    last4?: string;
    /** The gateway's reference of the updated stored card, when it has one. */
    gatewayReference?: string;
  };
}

/**
 * A call that got no answer about the card:
 * - `not_sent`: it never reached the gateway (connection refused, DNS, the circuit open):
 *   nothing was charged, it may be sent again;
 * - `unknown`: it may have reached the gateway (a timeout, a reset after sending, a 5xx): the
 *   outcome is unknown until it is reconciled;
 * - `rejected`: the gateway answered without charging and without judging the card (bad
 *   credentials, 429, a request it refused): never an issuer decline, and the operator is told.
 */
export type GatewayErrorKind = 'not_sent' | 'unknown' | 'rejected';

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  /** HTTP status, when there was one. */
  readonly status: number | undefined;
  /** The gateway's error code, when it sent one. */
  readonly code: string | undefined;
  /** The account the call went to, set by the router (the attempt is pinned to it). */
  accountId: string | undefined;
  /**
   * The call, as `METHOD URL` without a query (never a credential), where the connector knows
   * it: `rescued processor test` shows it, so a wrong base URL reads as such.
   */
  request: string | undefined;

  constructor(kind: GatewayErrorKind, message: string, opts: { status?: number; code?: string; cause?: unknown; request?: string } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = opts.status;
    this.code = opts.code;
    this.accountId = undefined;
    this.request = opts.request;
  }
}

/** `err` with the call it failed on, unless it already names one. */
export function failedAt<E>(err: E, request: string): E {
  if (err instanceof GatewayError) err.request ??= request;
  return err;
}

export interface Connector {
  readonly type: AccountType;
  /**
   * The gateway answers a repeated idempotency key with its first answer (Stripe, Adyen):
   * an unknown outcome is reconciled by sending the same call again. Otherwise `lookup` must
   * find the charge (or show there is none) before the call may be sent again.
   */
  readonly idempotent: boolean;
  /** Whether the account may be sent card numbers from the vault, or only gateway payment methods. */
  readonly acceptsCards: boolean;
  authorize(req: ChargeRequest): Promise<GatewayAnswer>;
  refund(req: RefundCall): Promise<GatewayAnswer>;
  void(req: Omit<RefundCall, 'amount'>): Promise<GatewayAnswer>;
  /** The charge made with this idempotency key, or null when the gateway has none. */
  lookup(req: { idempotencyKey: string; reference: string }): Promise<GatewayAnswer | null>;
  /** A harmless authenticated call; resolves with what it proved. */
  test(): Promise<string>;
}

/** Options every connector takes besides its credentials. */
export interface ConnectorOptions {
  /** Milliseconds before a call counts as timed out (an unknown outcome). */
  timeoutMs: number;
  /** Where the gateway is: the real one when absent; tests point it at a local fake. */
  baseUrl?: string;
  /** Extra CA certificates to trust (a test fake served over TLS). */
  ca?: string;
}

/**
 * A gateway as the router knows it before any call, without loading its connector (and the
 * SDK it may bring): `processors/<name>/credentials.ts` exports one as `gateway`, and
 * `processors/<name>/index.ts` default-exports the connector's factory (registry.ts).
 */
export interface GatewayKind {
  /** The schema of the account's credentials (one schema per input). */
  credentials: TSchema;
  /** The credential fields that are secrets: masked in listings. */
  secrets: readonly string[];
  /** What the connector's `idempotent` says. */
  idempotent: boolean;
  /** What the connector's `acceptsCards` says for these credentials. */
  acceptsCards: (credentials: { rawCardData?: boolean }) => boolean;
  /**
   * What makes these credentials the gateway's test environment (a Stripe `sk_test_` key, an
   * Adyen `test` account), or undefined: production mode refuses them (they charge nothing real,
   * so every retry would "succeed" without money moving).
   */
  testEnvironment?: (credentials: Record<string, unknown>) => string | undefined;
}
