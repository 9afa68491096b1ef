// Stripe's answers → ours. An approval is a PaymentIntent `succeeded` (or `requires_capture`);
// `requires_action` is authentication required. A decline is a 402 `card_error` whose fields
// (stripe-node 23.x esm/Error.d.ts) carry `decline_code`, `network_decline_code` (the raw
// network code), `network_advice_code` (Mastercard's MAC), `advice_code` and `charge`. Every
// other error says nothing about the card: a GatewayError of the kind that tells the router
// whether the call may have reached Stripe.
import type Stripe from 'stripe';
import { GatewayError, type GatewayAnswer } from '../connector.ts';
import { isoCodeFor } from '../../declines/sources.ts';
import { scrubText } from '../../scrub.ts';
import { CLOSED_NOT_RESENT } from './transport.ts';

type Charge = Stripe.Charge;

function chargeOf(pi: Stripe.PaymentIntent): Charge | undefined {
  return typeof pi.latest_charge === 'object' && pi.latest_charge !== null ? pi.latest_charge : undefined;
}

export function fromPaymentIntent(pi: Stripe.PaymentIntent): GatewayAnswer {
  const charge = chargeOf(pi);
  const networkTransactionId = charge?.payment_method_details?.card?.network_transaction_id ?? undefined;
  if (pi.status === 'succeeded' || pi.status === 'requires_capture' || pi.status === 'processing') {
    return { approved: true, responseCode: '00', processorRef: pi.id, rawCode: pi.status, ...(networkTransactionId ? { networkTransactionId } : {}) };
  }
  if (pi.status === 'requires_action') {
    return { approved: false, responseCode: '1A', challenge: '3ds', processorRef: pi.id, rawCode: 'authentication_required', rawMessage: 'requires_action' };
  }
  // requires_payment_method after a decline that did not throw (a search result, a retrieve).
  const err = pi.last_payment_error;
  const rawCode = err?.decline_code ?? err?.code ?? 'generic_decline';
  return {
    approved: false,
    responseCode: charge?.outcome?.network_decline_code ?? isoCodeFor('stripe', rawCode),
    ...(charge?.outcome?.network_advice_code ? { adviceCode: charge.outcome.network_advice_code } : {}),
    processorRef: pi.id,
    rawCode,
    ...(err?.message ? { rawMessage: err.message } : {}),
  };
}

export function fromCardError(err: Stripe.errors.StripeCardError): GatewayAnswer {
  const rawCode = err.decline_code ?? err.code ?? 'card_declined';
  const advice = err.network_advice_code ?? err.advice_code;
  return {
    approved: false,
    responseCode: err.network_decline_code ?? isoCodeFor('stripe', rawCode),
    ...(advice ? { adviceCode: advice } : {}),
    ...(rawCode === 'authentication_required' ? { challenge: '3ds' as const } : {}),
    processorRef: err.payment_intent?.id ?? err.charge ?? err.requestId ?? 'unknown',
    rawCode,
    rawMessage: err.message,
  };
}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Stripe's own words, on one line: card-shaped runs masked, API keys cut to their prefix. */
function said(message: string | undefined): string {
  if (!message) return '';
  return scrubText(message).replace(/\b((?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9*]+/g, '$1…').replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** The connection error's cause: the network code, or the one a closed connection had (transport.ts). */
function causeOf(detail: unknown): string | undefined {
  const d = detail as { code?: string; closedWith?: string } | undefined;
  return d?.code === CLOSED_NOT_RESENT ? d.closedWith : d?.code;
}

/**
 * Any other Stripe error as a GatewayError, with `request` (the call, for `processor test`) and
 * Stripe's own message; never with the request's parameters.
 */
export function toGatewayError(err: unknown, request?: string): GatewayError {
  const e = err as Stripe.errors.StripeError;
  const status = e.statusCode;
  const code = e.code ?? e.type;
  const opts = { ...(status ? { status } : {}), ...(code ? { code } : {}), ...(request ? { request } : {}) };
  const words = said(e.message);
  const suffix = `${words ? `: ${words}` : ''}${e.code ? ` (${e.code}${e.param ? `, ${e.param}` : ''})` : ''}`;
  if (e.type === 'StripeConnectionError') {
    const cause = causeOf(e.detail);
    return new GatewayError(cause && NOT_SENT.has(cause) ? 'not_sent' : 'unknown', `Stripe could not be reached (${cause ?? 'connection error'})`, opts);
  }
  if (status !== undefined && status >= 500) return new GatewayError('unknown', `Stripe answered HTTP ${status}`, opts);
  // 409: a request with this Idempotency-Key is still running at Stripe ("the request conflicts
  // with another that's executing concurrently", docs.stripe.com/api/idempotent_requests): it
  // may charge, so the outcome is unknown, never a refusal.
  if (status === 409) return new GatewayError('unknown', `Stripe is still processing a request with this Idempotency-Key (HTTP 409)${suffix}`, opts);
  if (e.type === 'StripeAuthenticationError' || e.type === 'StripePermissionError') return new GatewayError('rejected', `Stripe refused the account's credentials (HTTP ${status ?? '?'})${suffix}`, opts);
  if (e.type === 'StripeRateLimitError') return new GatewayError('rejected', 'Stripe is rate limiting the account (HTTP 429)', opts);
  if (e.type === 'StripeInvalidRequestError' || e.type === 'StripeIdempotencyError') return new GatewayError('rejected', `Stripe refused the request (HTTP ${status ?? '?'})${suffix}`, opts);
  // A body that is not Stripe's JSON, or anything unforeseen, after the request was sent.
  return new GatewayError('unknown', `Stripe call failed: ${e.type ?? 'unexpected answer'}`, opts);
}
