// The processor interface (DESIGN.md §3): what the engine and the HTTP routes call to charge,
// refund or void. Every call carries an idempotency key; a processor answers a key it has
// seen with its first answer, so a retry after a crash never charges twice.

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
}

export interface ProcessorResponse {
  approved: boolean;
  /** ISO 8583 response code ('00' approved). */
  responseCode: string;
  /** Mastercard merchant advice code, when the issuer sent one. */
  adviceCode?: string;
  /** Canonical reason of the decline (src/engine/reasons.ts), when declined. */
  reason?: string;
  /** A customer-initiated attempt the issuer wants authenticated or re-entered. */
  challenge?: '3ds' | 'cvv';
  /** The processor's reference: the confirmationId of an approval. */
  processorRef: string;
  /** True when this answer is the stored answer to a repeated idempotency key. */
  replayed: boolean;
}

export interface RefundRequest {
  idempotencyKey: string;
  reference: string;
  /** The processorRef of the approval being refunded or voided. */
  processorRef: string;
  amount: number;
  currency: string;
}

export interface Processor {
  readonly name: string;
  authorize(request: AuthorizeRequest): Promise<ProcessorResponse>;
  refund(request: RefundRequest): Promise<ProcessorResponse>;
  void(request: Omit<RefundRequest, 'amount'>): Promise<ProcessorResponse>;
}
