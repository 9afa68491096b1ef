// Adyen through the official SDK (@adyen/api-library, Checkout API v72): payments,
// refunds and cancels by pspReference, the payment methods call as a credentials test.
// Adyen keeps an Idempotency-Key at least 7 days (31 today: docs.adyen.com/
// development-resources/api-idempotency) and answers a repeated key with the first answer,
// so an unknown outcome is reconciled by sending the same call again (`idempotent: true`).
// The Checkout API has no look-up of a payment by key or reference: `lookup` says so.
//
// The SDK's own HTTP client is replaced through its documented seam (Client's second
// argument, lib/src/client.d.ts `httpClient?: ClientInterface`): its client trusts an extra CA
// only through `certificatePath`, whose server check accepts nothing but Adyen terminal
// certificates (lib/src/helpers/checkServerIdentity.js); its timeout is an idle-socket one
// that ends as a bare "socket hang up"; and it puts the response body in parse errors
// (lib/src/httpClient/httpURLConnectionClient.js). This one bounds the whole call by
// timeoutMs, tells "never sent" from "may have been sent" by whether the TLS connection was
// up, and keeps bodies out of errors. The services are made once: `checkout.PaymentsApi`
// builds a new service on every access (lib/src/services/checkout/index.js).
import { Agent, request as httpsRequest } from 'node:https';
import { rootCertificates, type TLSSocket } from 'node:tls';
import { CheckoutAPI, Client, EnvironmentEnum } from '@adyen/api-library';
import { GatewayError, failedAt, type ChargeRequest, type Connector, type ConnectorOptions, type GatewayAnswer, type RefundCall } from '../connector.ts';
import { fromHttpError, fromModification, fromNetworkError, fromPaymentResponse } from './answer.ts';
import type { AdyenCredentials } from './credentials.ts';
import { cancelRequest, paymentRequest, refundRequest } from './request.ts';

type Transport = NonNullable<ConstructorParameters<typeof Client>[1]>;
type RequestOptions = NonNullable<Parameters<Transport['request']>[4]>;

interface Wire {
  agent: Agent;
  apiKey: string;
  timeoutMs: number;
}

function settle(status: number, text: string): string {
  if (status < 200 || status >= 300) throw fromHttpError(status, text);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) return text;
  } catch {
    // falls through
  }
  throw new GatewayError('unknown', `Adyen answered HTTP ${status} with a body that is not a JSON object`, { status });
}

/** One HTTPS call; resolves with the body of a 2xx JSON answer. Its failures name the call (`processor test` shows it). */
function send(wire: Wire, endpoint: string, body: string | Buffer, options: RequestOptions): Promise<string> {
  const request = `${options.method ?? 'POST'} ${endpoint.split('?')[0]}`;
  return new Promise<string>((resolve, reject) => {
    let connected = false;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-api-key': wire.apiKey,
      'user-agent': 'rescued',
      ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
    };
    const req = httpsRequest(endpoint, { method: options.method ?? 'POST', headers, agent: wire.agent, signal: AbortSignal.timeout(wire.timeoutMs) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (err) => reject(fromNetworkError(err, true)));
      res.on('end', () => {
        if (!res.complete) return reject(fromNetworkError({ name: 'Error', code: 'ECONNRESET' }, true));
        try {
          resolve(settle(res.statusCode ?? 0, text));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('socket', (socket: TLSSocket) => {
      // A kept-alive socket is already up; a new one is up once its TLS handshake is done.
      if (!socket.connecting && socket.encrypted) connected = true;
      else socket.once('secureConnect', () => (connected = true));
    });
    req.on('error', (err) => reject(fromNetworkError(err, connected)));
    req.end(body);
  }).catch((err: unknown) => {
    throw failedAt(err, request);
  });
}

function transport(wire: Wire): Transport {
  return { request: (endpoint, json, _config, _apiKeyRequired, options = {}) => send(wire, endpoint, json, options) };
}

/** Why the account cannot be called, if it cannot. */
function configProblem(credentials: AdyenCredentials, opts: ConnectorOptions): string | undefined {
  if (credentials.environment === 'live' && !credentials.liveEndpointUrlPrefix && !opts.baseUrl) return 'the live Adyen account has no liveEndpointUrlPrefix (Customer Area > Developers > API URLs)';
  return undefined;
}

function services(credentials: AdyenCredentials, opts: ConnectorOptions) {
  const agent = new Agent({ keepAlive: true, ...(opts.ca ? { ca: [...rootCertificates, opts.ca] } : {}) });
  const wire = { agent, apiKey: credentials.apiKey, timeoutMs: opts.timeoutMs };
  const environment = credentials.environment === 'live' ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST;
  const client = new Client({ apiKey: credentials.apiKey, environment, ...(credentials.liveEndpointUrlPrefix ? { liveEndpointUrlPrefix: credentials.liveEndpointUrlPrefix } : {}) }, transport(wire));
  const checkout = new CheckoutAPI(client);
  const payments = checkout.PaymentsApi;
  const modifications = checkout.ModificationsApi;
  // The SDK builds its URLs as `${this.baseUrl}/payments`; baseUrl is a plain property that its
  // typings mark private (lib/src/services/checkout/paymentsApi.js). Ours replaces host and version.
  if (opts.baseUrl) for (const service of [payments, modifications]) Object.assign(service, { baseUrl: opts.baseUrl.replace(/\/+$/, '') });
  return { payments, modifications };
}

export function createAdyenConnector(credentials: AdyenCredentials, opts: ConnectorOptions): Connector {
  const problem = configProblem(credentials, opts);
  const api = problem ? undefined : services(credentials, opts);
  const { merchantAccount } = credentials;

  async function call<T>(body: (a: NonNullable<typeof api>) => Promise<T>): Promise<T> {
    if (!api) throw new GatewayError('rejected', problem!, { code: 'account_misconfigured' });
    try {
      return await body(api);
    } catch (err) {
      // Anything but our own errors came from the SDK after the call was made.
      throw err instanceof GatewayError ? err : new GatewayError('unknown', `Adyen call failed: ${(err as Error).name ?? 'unexpected error'}`);
    }
  }

  async function authorize(req: ChargeRequest): Promise<GatewayAnswer> {
    // Adyen finds a token only under its shopperReference (make-token-payments).
    if (req.gatewayMethod && !req.gatewayMethod.customer) throw new GatewayError('rejected', 'an Adyen token needs its shopperReference: set additionalFields processor.customer', { code: 'shopper_reference_missing' });
    const res = await call((a) => a.payments.payments(paymentRequest(req, { merchantAccount, returnUrl: credentials.returnUrl }), { idempotencyKey: req.idempotencyKey }));
    return fromPaymentResponse(res);
  }

  async function refund(req: RefundCall): Promise<GatewayAnswer> {
    const res = await call((a) => a.modifications.refundCapturedPayment(req.processorRef, refundRequest(req, merchantAccount), { idempotencyKey: req.idempotencyKey }));
    return fromModification(res, 'refund');
  }

  async function cancel(req: Omit<RefundCall, 'amount'>): Promise<GatewayAnswer> {
    const res = await call((a) => a.modifications.cancelAuthorisedPaymentByPspReference(req.processorRef, cancelRequest(req, merchantAccount), { idempotencyKey: req.idempotencyKey }));
    return fromModification(res, 'cancel');
  }

  async function lookup(): Promise<GatewayAnswer | null> {
    // Never "no charge": Adyen cannot be asked, so nothing here may claim there was none.
    throw new GatewayError('unknown', 'Adyen has no look-up of a payment by key: an unknown outcome is reconciled by sending the same call again with its Idempotency-Key', { code: 'lookup_unsupported' });
  }

  async function test(): Promise<string> {
    const res = await call((a) => a.payments.paymentMethods({ merchantAccount }));
    const methods = res.paymentMethods ?? [];
    const cards = methods.some((m) => m.type === 'scheme');
    return `Adyen accepted the API key for merchant account ${merchantAccount} (${credentials.environment}; ${methods.length} payment methods offered, cards ${cards ? 'among them' : 'not among them'}); this does not show whether raw card data or the additional-data fields are enabled`;
  }

  return { type: 'adyen', idempotent: true, acceptsCards: credentials.rawCardData === true, authorize, refund, void: cancel, lookup, test };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createAdyenConnector;
