// Stripe through the official SDK (stripe-node): PaymentIntents confirmed at creation,
// refunds, cancels. Stripe keeps idempotency keys for at least 24 hours and answers a repeated
// key with its first answer, so an unknown outcome is reconciled by sending the same call
// again (`idempotent: true`); `lookup` searches by the key kept in the metadata, for later.
// The SDK's own retries are off, all of them: `maxNetworkRetries: 0` stops those after a 409 or
// a 5xx, and the SDK's resend after a closed connection (ECONNRESET, EPIPE), which it makes
// whatever maxNetworkRetries says, is stopped by its HTTP client (transport.ts says why). A
// reset call is an unknown outcome that rescued records and reconciles itself: the router and
// the engine decide when to call again (docs/gateways/README.md, "Stripe").
// Where: api.stripe.com, or processor.gatewayUrls.stripe, an origin the SDK adds `/v1/…` to.
import Stripe from 'stripe';
import type { ChargeRequest, Connector, ConnectorOptions, GatewayAnswer, RefundCall } from '../connector.ts';
import { fromCardError, fromPaymentIntent, toGatewayError } from './answer.ts';
import type { StripeCredentials } from './credentials.ts';
import { paymentIntentParams } from './request.ts';
import { clientWithoutResend } from './transport.ts';
import { mayHaveUpdate, updatedCard } from './updates.ts';

const STRIPE_API = 'https://api.stripe.com';

function client(credentials: StripeCredentials, opts: ConnectorOptions): Stripe {
  const url = opts.baseUrl ? new URL(opts.baseUrl) : undefined;
  return new Stripe(credentials.secretKey, {
    maxNetworkRetries: 0,
    httpClient: clientWithoutResend(),
    timeout: opts.timeoutMs,
    telemetry: false,
    ...(url ? { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol === 'http:' ? 'http' : 'https' } : {}),
  });
}

export function createStripeConnector(credentials: StripeCredentials, opts: ConnectorOptions): Connector {
  const stripe = client(credentials, opts);
  const origin = opts.baseUrl ? new URL(opts.baseUrl).origin : STRIPE_API;
  /** The call as `processor test` names it: method and URL, the query left out. */
  const at = (method: string, path: string) => `${method} ${origin}${path}`;

  async function call<T>(request: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      throw toGatewayError(err, request);
    }
  }

  async function authorize(req: ChargeRequest): Promise<GatewayAnswer> {
    try {
      return fromPaymentIntent(await stripe.paymentIntents.create(paymentIntentParams(req), { idempotencyKey: req.idempotencyKey }));
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) return withUpdate(req, fromCardError(err), err.charge);
      throw toGatewayError(err, at('POST', '/v1/payment_intents'));
    }
  }

  /** A decline after which Stripe may have updated the saved card: what changed (updates.ts). */
  async function withUpdate(req: ChargeRequest, answer: GatewayAnswer, chargeId: string | undefined): Promise<GatewayAnswer> {
    if (!mayHaveUpdate(req, answer)) return answer;
    const cardUpdate = await updatedCard(stripe, req, chargeId);
    return cardUpdate ? { ...answer, cardUpdate } : answer;
  }

  async function refund(req: RefundCall): Promise<GatewayAnswer> {
    const r = await call(at('POST', '/v1/refunds'), () => stripe.refunds.create({ payment_intent: req.processorRef, amount: req.amount, metadata: { rescued_key: req.idempotencyKey } }, { idempotencyKey: req.idempotencyKey }));
    const approved = r.status === 'succeeded' || r.status === 'pending';
    return { approved, responseCode: approved ? '00' : '05', processorRef: r.id, rawCode: r.status ?? 'unknown', ...(r.failure_reason ? { rawMessage: r.failure_reason } : {}) };
  }

  async function cancel(req: Omit<RefundCall, 'amount'>): Promise<GatewayAnswer> {
    const pi = await call(at('POST', '/v1/payment_intents/{id}/cancel'), () => stripe.paymentIntents.cancel(req.processorRef, {}, { idempotencyKey: req.idempotencyKey }));
    const approved = pi.status === 'canceled';
    return { approved, responseCode: approved ? '00' : '12', processorRef: pi.id, rawCode: pi.status };
  }

  async function lookup(req: { idempotencyKey: string }): Promise<GatewayAnswer | null> {
    // Search is eventually consistent (about a minute behind): the router also replays the key.
    const query = `metadata['rescued_key']:'${req.idempotencyKey.replace(/'/g, "\\'")}'`;
    const found = await call(at('GET', '/v1/payment_intents/search'), () => stripe.paymentIntents.search({ query, expand: ['data.latest_charge'] }));
    const pi = found.data[0];
    return pi ? fromPaymentIntent(pi) : null;
  }

  async function test(): Promise<string> {
    const balance = await call(at('GET', '/v1/balance'), () => stripe.balance.retrieve());
    return `Stripe accepted the key (${balance.livemode ? 'live' : 'test'} mode; balance read)`;
  }

  return { type: 'stripe', idempotent: true, acceptsCards: credentials.rawCardData === true, authorize, refund, void: cancel, lookup, test };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createStripeConnector;
