// The processor interface (DESIGN.md §3): what the engine and the HTTP routes call to charge,
// refund or void. Every call carries an idempotency key; a processor answers a key it has
// seen with its first answer, so a retry after a crash never charges twice.
import type { GatewayAnswer } from './connector.ts';

/** What a gateway's account updater changed during a call (connector.ts GatewayAnswer.cardUpdate). */
export type GatewayCardUpdate = NonNullable<GatewayAnswer['cardUpdate']>;

/**
 * An order's credential when it is no longer the card it came with (src/domain/card-updates.ts):
 * `vault`: charge the vault card of cardToken, not the payment method the order's fields name
 * (the merchant sent a new card); `gateway`: the gateway's account updater changed the card, and
 * its updated stored card (gatewayReference) or new expiry is what is charged.
 */
export type ChargeCredential = { kind: 'vault' } | { kind: 'gateway'; gatewayReference?: string; expMonth?: number; expYear?: number };

/** What the processor needs to charge a card: the vault token, never the number in logs. */
export interface AuthorizeRequest {
  /** `<orderSessionKey>:<attemptNo>` for engine attempts. */
  idempotencyKey: string;
  /** The order (orderSessionKey) the call belongs to. */
  reference: string;
  merchantId: string;
  cardToken: string;
  /** Minor units. */
  amount: number;
  currency: string;
  isMIT: boolean;
  /** The payer's UTC offset, as the order carries it (hours, or minutes when |x| > 14). */
  timezoneUtcOffset?: number | null;
  /** A CVV given to complete a challenge: used for this call only, never stored. */
  cvv?: string;
  /** 3-D Secure data given to complete a challenge. */
  threeDSecure?: unknown;
  /** What the router reads from the order to choose the account and fill the gateway's fields. */
  order?: OrderFacts;
  /**
   * The account this attempt is pinned to: an attempt sent before (its outcome unknown, or
   * replayed after a crash) goes back to the account that may have charged it.
   */
  accountId?: string | null;
  /** Absent: the order's own card, as the order names it. */
  credential?: ChargeCredential;
}

/** The order as the router needs it (src/processors/order-facts.ts reads it from the request). */
export interface OrderFacts {
  orderId?: string;
  /** additionalFields, as key → value. */
  fields: Record<string, string>;
  /** transaction.responseCodeSource / processorName: the gateway that declined. */
  declineSource?: string;
  processorName?: string;
  isRecurring?: boolean;
  schemeTransactionId?: string;
  holderName?: string;
  expMonth?: number;
  expYear?: number;
}

/** Where an attempt went and why (written on the attempt). */
export type Route = 'explicit' | 'decliner' | 'default' | 'only' | 'sandbox' | 'pinned';

export interface ProcessorResponse {
  approved: boolean;
  /** ISO 8583 response code ('00' approved). */
  responseCode: string;
  /** Mastercard merchant advice code, when the issuer sent one. */
  adviceCode?: string;
  /** Canonical reason of the decline (src/declines/reasons.ts), when declined. */
  reason?: string;
  /** A customer-initiated attempt the issuer wants authenticated or re-entered. */
  challenge?: '3ds' | 'cvv';
  /** The processor's reference: the confirmationId of an approval. */
  processorRef: string;
  /** True when this answer is the stored answer to a repeated idempotency key. */
  replayed: boolean;
  /** The merchant's account that answered (absent: the built-in sandbox). */
  accountId?: string | null;
  route?: Route;
  /** The account's type: the table that classifies rawCode. */
  source?: string;
  rawCode?: string;
  rawMessage?: string;
  networkTransactionId?: string;
  /** The gateway's account updater changed the card during this call. */
  cardUpdate?: GatewayCardUpdate;
}

export interface RefundRequest {
  idempotencyKey: string;
  reference: string;
  merchantId?: string;
  /** The account that charged: refunds and voids go back through it. */
  accountId?: string | null;
  /** The processorRef of the approval being refunded or voided. */
  processorRef: string;
  amount: number;
  currency: string;
  /** The card's last four digits (Authorize.Net needs them to refund). */
  last4?: string;
}

/** The charge made with this key, if the account that may have made it says so. */
export interface LookupRequest {
  idempotencyKey: string;
  reference: string;
  merchantId: string;
  accountId: string | null;
}

export interface Processor {
  readonly name: string;
  /** Chooses the account of a new attempt, so it can be pinned to it before the call. */
  route?(request: Pick<AuthorizeRequest, 'merchantId' | 'order'>): Promise<{ accountId: string | null; route: Route }>;
  /**
   * For an attempt whose outcome is unknown: 'replay' when sending the same call again is
   * safe (the account dedupes keys), 'lookup' when the charge must be looked up first.
   */
  reconcileBy?(accountId: string | null, merchantId: string): Promise<'replay' | 'lookup'>;
  lookup?(request: LookupRequest): Promise<ProcessorResponse | null>;
  authorize(request: AuthorizeRequest): Promise<ProcessorResponse>;
  /** Present on processors whose record of a charge is a row in rescued's own database (the sandbox). */
  local?: LocalAnswers;
  refund(request: RefundRequest): Promise<ProcessorResponse>;
  void(request: Omit<RefundRequest, 'amount'>): Promise<ProcessorResponse>;
}

/** A first authorization answered but not yet stored: it binds only once `record` is stored. */
export interface LocalAnswer {
  response: ProcessorResponse;
  /** The processor_calls row that makes the answer the processor's record of the call. */
  record: { idempotencyKey: string; operation: 'authorize'; reference: string; approved: boolean; response: unknown; createdAt: Date };
}

/**
 * A processor whose record of a call lives in rescued's own database can answer a first call
 * without writing it, so that the caller stores the record in its own statement beside the
 * order (one round trip instead of three). The caller must store the record only if the
 * reference has no earlier calls (the answer assumes none), and atomically with whatever
 * relies on it: an answer never stored was never given.
 */
export interface LocalAnswers {
  /** The processor these answers stand for: a copy of it with another `authorize` (a wrapper) is not answered for. */
  readonly of: Processor;
  /** Undefined when this call must go through `authorize` (the charge would leave rescued). */
  authorizeFirst(request: AuthorizeRequest): Promise<LocalAnswer | undefined>;
}

/** The processor's local answers, if they stand for this very processor. */
export function localAnswersOf(processor: Processor | undefined): LocalAnswers | undefined {
  const local = processor?.local;
  return local && local.of === processor ? local : undefined;
}
