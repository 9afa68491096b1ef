// stripe-node's own Node HTTP client with one change: a request whose connection closed under it
// (ECONNRESET, EPIPE) is not sent again by the SDK.
//
// Why (stripe-node 23.1, esm/RequestSender.js): `_shouldRetry` answers true for an error whose
// code is in `HttpClient.CONNECTION_CLOSED_ERROR_CODES` on the first try, *before* it looks at
// maxNetworkRetries ("A closed connection is retried once even when retries are disabled",
// stripe/stripe-node#1040: a stale keep-alive socket), and `_request` sends the same headers and
// body again after `_getSleepTimeInMS(0)`, 0.5 to 1 s later. Same Idempotency-Key and body, so
// Stripe never charges twice; but the call's outcome stays unknown to rescued for that second,
// the resend may meet the first request still running at Stripe (409, a refusal that is no
// answer about the card), and one call may outlast processor.timeoutMs. rescued's own reconciliation
// (docs/gateways/README.md, "Money safety") does the same resend, recorded, after
// processor.reconcileAfterMs: so the SDK's is stopped here, by renaming the error's code to one
// it does not resend on. The SDK then reports a StripeConnectionError whose `detail` is the
// renamed error (answer.ts reads it: an unknown outcome).
import Stripe from 'stripe';

type HttpClient = NonNullable<Stripe.StripeConfig['httpClient']>;

/** The code a closed connection is reported with instead; `closedWith` keeps the original one. */
export const CLOSED_NOT_RESENT = 'RESCUED_CONNECTION_CLOSED';

/** The error codes stripe-node sends a request again on, whatever maxNetworkRetries says. */
const RESENT_ON: readonly string[] = Stripe.HttpClient.CONNECTION_CLOSED_ERROR_CODES;

function renamed(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !RESENT_ON.includes(code)) return err;
  return Object.assign(new Error(`connection closed (${code})`, { cause: err }), { code: CLOSED_NOT_RESENT, closedWith: code });
}

/** The SDK's node client (keep-alive agent as by default), without its resend on a closed connection. */
export function clientWithoutResend(): HttpClient {
  const inner = Stripe.createNodeHttpClient();
  return {
    getClientName: () => inner.getClientName(),
    makeRequest: (...args: Parameters<HttpClient['makeRequest']>) =>
      inner.makeRequest(...args).catch((err: unknown) => {
        throw renamed(err);
      }),
  };
}
