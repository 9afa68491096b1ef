// Braintree through the official SDK (`braintree` 3.40, no typings: the few calls used are
// typed below from its sources). Sales are submitted for settlement at once; refunds, voids;
// look-up by order id. Braintree keeps no idempotency key for this API, so the connector is
// not idempotent: after an unknown outcome the router asks `lookup`, which searches the
// attempt key sent as `orderId`, before anything is sent again.
// Where the gateway is: `Environment.Sandbox` / `Environment.Production`, or opts.baseUrl as a
// custom `new Environment(host, port, authUrl, ssl)` (lib/braintree/environment.js). The SDK
// speaks JSON to the gateway and reads its XML answers (lib/braintree/http.js); it takes a
// `customHttpAgent` (used for opts.ca) and a per-request socket timeout (`config.timeout`,
// lib/braintree/config.js), and every operation here is also bounded as a whole by
// opts.timeoutMs.
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { GatewayError, type ChargeRequest, type Connector, type ConnectorOptions, type GatewayAnswer, type RefundCall } from '../connector.ts';
import { fromResult, fromTransaction, pickCharge, toGatewayError, validationCodes, type BtResult, type BtTransaction } from './answer.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { amountOf, saleAttributes, type SaleAttributes } from './request.ts';

interface BtSearchResponse {
  success?: boolean;
  ids?: string[];
  errors?: BtResult['errors'];
}

interface BtGateway {
  config: { timeout: number };
  transaction: {
    sale(attributes: SaleAttributes): Promise<BtResult>;
    refund(id: string, options: { amount: string; orderId: string }): Promise<BtResult>;
    void(id: string): Promise<BtResult>;
    find(id: string): Promise<BtTransaction>;
    search(build: (s: { orderId(): { is(value: string): void } }) => void, done: (err: unknown, res: BtSearchResponse | undefined) => void): void;
  };
  merchantAccount: { find(id: string): Promise<{ id: string; currencyIsoCode?: string; status?: string }> };
}

interface BtSdk {
  BraintreeGateway: new (config: { environment: object; merchantId: string; publicKey: string; privateKey: string; customHttpAgent: http.Agent }) => BtGateway;
  Environment: { new (server: string, port: string, authUrl: string, ssl: boolean): object; Sandbox: object; Production: object };
}

const braintree = createRequire(import.meta.url)('braintree') as BtSdk;

function client(credentials: BraintreeCredentials, opts: ConnectorOptions): BtGateway {
  const url = opts.baseUrl ? new URL(opts.baseUrl) : undefined;
  const ssl = url ? url.protocol === 'https:' : true;
  const environment = url
    ? new braintree.Environment(url.hostname, url.port || (ssl ? '443' : '80'), 'https://auth.invalid', ssl)
    : credentials.environment === 'production' ? braintree.Environment.Production : braintree.Environment.Sandbox;
  // As Node's global agent (keep-alive, idle sockets dropped after 5 s), one per account.
  const agentOptions = { keepAlive: true, timeout: 5000, scheduling: 'lifo' as const };
  const customHttpAgent = ssl ? new https.Agent({ ...agentOptions, ...(opts.ca ? { ca: opts.ca } : {}) }) : new http.Agent(agentOptions);
  const gateway = new braintree.BraintreeGateway({ environment, merchantId: credentials.merchantId, publicKey: credentials.publicKey, privateKey: credentials.privateKey, customHttpAgent });
  gateway.config.timeout = opts.timeoutMs;
  return gateway;
}

/** Runs one operation, bounded by the timeout as a whole, its failures as GatewayErrors. */
async function bounded<T>(timeoutMs: number, body: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatewayError('unknown', `Braintree did not answer within ${timeoutMs} ms`, { code: 'timeout' })), timeoutMs);
  });
  try {
    return await Promise.race([body(), deadline]);
  } catch (err) {
    throw toGatewayError(err);
  } finally {
    clearTimeout(timer);
  }
}

/** Transaction ids whose orderId is the key, most recent first (Transaction: Search). */
function searchOrderId(gateway: BtGateway, orderId: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    gateway.transaction.search((s) => s.orderId().is(orderId), (err, res) => {
      if (err) return reject(err);
      if (res && Array.isArray(res.ids)) return resolve(res.ids);
      const code = validationCodes(res as BtResult)[0]?.code;
      reject(new GatewayError('rejected', `Braintree refused the transaction search${code ? ` (${code})` : ''}`, { code: code ?? 'search_refused' }));
    });
  });
}

const hasCode = (result: BtResult, code: string) => validationCodes(result).some((e) => e.code === code);

export function createBraintreeConnector(credentials: BraintreeCredentials, opts: ConnectorOptions): Connector {
  const gateway = client(credentials, opts);
  const call = <T>(body: () => Promise<T>) => bounded(opts.timeoutMs, body);

  function accountFor(currency: string): string | undefined {
    const map = credentials.merchantAccounts;
    if (!map) return credentials.merchantAccountId;
    const id = map[currency.toUpperCase()];
    if (!id) throw new GatewayError('rejected', `the Braintree account has no merchant account for ${currency.toUpperCase()} (credentials merchantAccounts)`, { code: 'currency_not_configured' });
    return id;
  }

  async function authorize(req: ChargeRequest): Promise<GatewayAnswer> {
    const attributes = saleAttributes(req, accountFor(req.currency));
    return call(async () => fromResult(await gateway.transaction.sale(attributes), 'sale'));
  }

  /** A void's result: `voided` is its success; a second void of a voided sale is one too (91504). */
  async function voidAnswer(id: string, result: BtResult): Promise<GatewayAnswer> {
    const t = result.transaction;
    if (result.success && t) return { approved: true, responseCode: '00', processorRef: t.id, rawCode: t.status };
    if (!t && hasCode(result, '91504')) {
      const found = await gateway.transaction.find(id);
      if (found.status === 'voided') return { approved: true, responseCode: '00', processorRef: found.id, rawCode: found.status };
    }
    return fromResult(result, 'void');
  }

  async function cancel(req: Omit<RefundCall, 'amount'>): Promise<GatewayAnswer> {
    return call(async () => voidAnswer(req.processorRef, await gateway.transaction.void(req.processorRef)));
  }

  /**
   * Braintree refunds only settling or settled sales (91506, CannotRefundUnlessSettled); before
   * that, giving the whole amount back is a void
   * (https://developer.paypal.com/braintree/articles/control-panel/transactions/refunds-voids-credits).
   * A partial refund before settlement stays refused. The refund's orderId is its own key.
   */
  async function refund(req: RefundCall): Promise<GatewayAnswer> {
    const amount = amountOf(req.amount, req.currency);
    return call(async () => {
      const result = await gateway.transaction.refund(req.processorRef, { amount, orderId: req.idempotencyKey });
      if (result.transaction || !hasCode(result, '91506')) return fromResult(result, 'refund');
      const sale = await gateway.transaction.find(req.processorRef);
      if (Number(sale.amount) !== Number(amount)) throw new GatewayError('rejected', `Braintree refunds only settled sales (91506): ${sale.id} is ${sale.status}; a partial refund must wait for settlement`, { status: 422, code: '91506' });
      return voidAnswer(sale.id, await gateway.transaction.void(sale.id));
    });
  }

  async function lookup(req: { idempotencyKey: string }): Promise<GatewayAnswer | null> {
    return call(async () => {
      const ids = await searchOrderId(gateway, req.idempotencyKey);
      if (ids.length === 0) return null;
      const found = await Promise.all(ids.slice(0, 10).map((id) => gateway.transaction.find(id)));
      return fromTransaction(pickCharge(found));
    });
  }

  /** Every configured merchant account exists, is active, and settles the currency it is listed for. */
  async function checkAccounts(): Promise<string[]> {
    const listed: [string | undefined, string][] = credentials.merchantAccounts ? Object.entries(credentials.merchantAccounts) : credentials.merchantAccountId ? [[undefined, credentials.merchantAccountId]] : [];
    const seen: string[] = [];
    for (const [currency, id] of listed) {
      const account = await gateway.merchantAccount.find(id);
      if (currency && account.currencyIsoCode !== currency) throw new GatewayError('rejected', `Braintree merchant account ${id} settles ${account.currencyIsoCode ?? 'an unknown currency'}, not ${currency}`, { code: 'currency_mismatch' });
      if (account.status && account.status !== 'active') throw new GatewayError('rejected', `Braintree merchant account ${id} is ${account.status}`, { code: 'merchant_account_inactive' });
      seen.push(`${id} ${account.currencyIsoCode ?? '?'}`);
    }
    return seen;
  }

  async function test(): Promise<string> {
    return call(async () => {
      await searchOrderId(gateway, 'rescued-credentials-test');
      const accounts = await checkAccounts();
      return `Braintree accepted the API keys (${credentials.environment}; transaction search allowed; merchant account ${accounts.length > 0 ? accounts.join(', ') : 'the gateway default'})`;
    });
  }

  return { type: 'braintree', idempotent: false, acceptsCards: credentials.rawCardData === true, authorize, refund, void: cancel, lookup, test };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createBraintreeConnector;
