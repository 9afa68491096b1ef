// NMI through its Payment API (POST /api/transact.php, form-encoded both ways) and Query API
// (POST /api/query.php, answering XML), both under https://secure.nmi.com (NMI Payment API
// reference, "Transaction Variables: POST URL"; https://docs.nmi.com/reference/query-1). NMI
// publishes no Node SDK for these APIs (its npm packages, @nmipayments/nmi-pay and the like, are
// the browser Payment Component; `nmi` and `znmi` on npm are unofficial wrappers, the former
// over the deprecated `request`), so this is a small client of its own.
// NMI has no idempotency key (`idempotent: false`): the attempt key goes in `orderid`, and
// after an unknown outcome `lookup` asks the Query API for that order id before anything is
// sent again. The router and the engine decide when; this file only translates.
// The client is node:http(s) rather than fetch: it takes a per-call CA (a test fake over TLS)
// and tells a call that never left (no connection made: nothing can have been charged) from
// one that may have reached NMI. Connections are not kept alive, so a stale pooled socket can
// never turn a call that was not sent into an unknown outcome.
import * as tls from 'node:tls';
import { postOnce, PostFailure } from '../post-once.ts';
import { GatewayError, type ChargeRequest, type Connector, type ConnectorOptions, type GatewayAnswer, type GatewayErrorKind, type RefundCall } from '../connector.ts';
import { fromPayment, fromQuery, parsePaymentAnswer, readQuery, statusError, transportError, type XmlNode } from './answer.ts';
import type { NmiCredentials } from './credentials.ts';
import { lookupForm, refundForm, saleForm, voidForm, type Form } from './request.ts';

const NMI_URL = 'https://secure.nmi.com';
/** A Payment API answer is a few hundred bytes; a look-up by order id lists a handful of transactions. */
const MAX_ANSWER_BYTES = 1 << 20;
/** An order id no attempt key can be (keys are `<uuid>:<n>`): test() proves the key and finds nothing. */
const TEST_ORDER_ID = 'rescued-connection-test';

/** The CAs Node trusts by default (tls.getCACertificates is Node ≥ 22.15), to which opts.ca is added. */
const trusted = (): readonly string[] => (typeof tls.getCACertificates === 'function' ? tls.getCACertificates('default') : tls.rootCertificates);

interface Reply {
  status: number;
  body: string;
}

/** One POST, bounded by opts.timeoutMs from start to the end of the answer. */
async function exchange(url: URL, form: string, opts: ConnectorOptions, what: string): Promise<Reply> {
  const secure = url.protocol === 'https:';
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form), accept: '*/*' };
  try {
    const answer = await postOnce(url, form, { headers, timeoutMs: opts.timeoutMs, maxAnswerBytes: MAX_ANSWER_BYTES, agent: false, ...(secure && opts.ca ? { ca: [...trusted(), opts.ca] } : {}) });
    return { status: answer.status, body: answer.text };
  } catch (err) {
    throw err instanceof PostFailure ? transportError(err.cause, err.sent, what) : err;
  }
}

function asUnknown(err: unknown): GatewayError {
  if (err instanceof GatewayError && err.kind === 'unknown') return err;
  const e = err as Partial<GatewayError>;
  return new GatewayError('unknown', e.message ?? 'NMI look-up failed', { ...(e.status ? { status: e.status } : {}), ...(e.code ? { code: e.code } : {}) });
}

export function createNmiConnector(credentials: NmiCredentials, opts: ConnectorOptions): Connector {
  const root = (opts.baseUrl ?? credentials.gatewayUrl ?? NMI_URL).replace(/\/+$/, '');
  const transact = new URL(`${root}/api/transact.php`);
  const query = new URL(`${root}/api/query.php`);
  const encode = (fields: Form) => new URLSearchParams({ security_key: credentials.securityKey, ...fields }).toString();

  async function pay(fields: Form, what: string): Promise<GatewayAnswer> {
    const reply = await exchange(transact, encode(fields), opts, what);
    if (reply.status !== 200) throw statusError(reply.status, what);
    return fromPayment(parsePaymentAnswer(reply.body));
  }

  async function ask(fields: Form, refusedKind: GatewayErrorKind, what: string): Promise<XmlNode> {
    const reply = await exchange(query, encode(fields), opts, what);
    if (reply.status !== 200) throw statusError(reply.status, what);
    return readQuery(reply.body, refusedKind);
  }

  async function lookup(req: { idempotencyKey: string }): Promise<GatewayAnswer | null> {
    let found: XmlNode;
    try {
      found = await ask(lookupForm(req.idempotencyKey), 'unknown', 'look-up');
    } catch (err) {
      // A look-up that failed leaves the attempt's outcome unknown, whatever stopped it (not
      // sent, 429, a refused key): any other kind would tell the engine that nothing was
      // charged and let the call go again.
      throw asUnknown(err);
    }
    // A listed sale NMI itself refused (nothing charged, nothing judged) is 'rejected' here, as
    // the sale's own answer would have been.
    return fromQuery(found, req.idempotencyKey);
  }

  async function test(): Promise<string> {
    const found = await ask(lookupForm(TEST_ORDER_ID), 'rejected', 'test query');
    const listed = found.children.filter((c) => c.name === 'transaction').length;
    return `NMI accepted the security key (the Query API answered a look-up by order id${listed ? `; ${listed} listed` : ''})`;
  }

  return {
    type: 'nmi',
    idempotent: false,
    acceptsCards: true,
    authorize: (req: ChargeRequest) => pay(saleForm(req, credentials), 'sale'),
    refund: (req: RefundCall) => pay(refundForm(req), 'refund'),
    void: (req: Omit<RefundCall, 'amount'>) => pay(voidForm(req), 'void'),
    lookup,
    test,
  };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createNmiConnector;
