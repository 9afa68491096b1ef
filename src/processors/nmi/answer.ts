// NMI's answers → ours. The Payment API answers form-encoded (NMI Payment API reference,
// "Transaction Response Variables"): `response` 1 approved, 2 declined, 3 "error in
// transaction data or system error"; `responsetext`; `response_code` from its "Result Code
// Table" (100 approved, 2xx declines, 3xx gateway, 4xx processor), the code the engine's
// table (src/declines/tables/nmi.ts) keys by; `transactionid`; `authcode`; and, when the account's
// API configuration asks for it, `merchant_advice_code` (Mastercard's MAC). NMI passes on no
// raw network response code and no network transaction id, so the ISO code shown is the one
// of the same reason (src/declines/table.ts). The Query API answers XML (https://docs.nmi.com/reference/query-1):
// `<nm_response>` holding `<transaction>` elements with `transaction_id`, `condition`,
// `order_id` and `<action>` elements (`action_type`, `success`, `response_code`,
// `response_text`), or `<error_response>` when it refuses the query.
import { scrubText } from '../../scrub.ts';
import { GatewayError, type GatewayAnswer, type GatewayErrorKind } from '../connector.ts';
import { isoCodeFor } from '../../declines/sources.ts';

export interface PaymentAnswer {
  response: '1' | '2' | '3';
  responsetext: string;
  response_code: string;
  transactionid: string;
  merchant_advice_code: string;
}

/**
 * `response=3` codes that are still an answer about this payment, from the processor or the
 * issuer: 400 processor error, 420/421 communication errors (NMI records the transaction as
 * failed; a look-up finds the same), 430 duplicate at the processor, 461 unsupported card
 * type. The other error codes say nothing about the card and are refusals of our call: 300
 * "rejected by gateway" (authentication failed, a field it refused, its own duplicate and
 * fraud rules), 301 "Rate limit exceeded" (its "Rate Limits" section), 410/411 the merchant
 * account's set-up, 440/441 our request as the processor read it, 460 a feature the account
 * lacks. An unlisted code is treated as a refusal too: nothing was approved.
 */
const PROCESSOR_ANSWERS = new Set(['400', '420', '421', '430', '461']);
const isDecline = (code: string) => /^2\d\d$/.test(code) || PROCESSOR_ANSWERS.has(code);

/** NMI's result code table has no code for "authentication required": its text says it (ISO 1A's wording, "SCA", "3-D Secure"). */
const AUTHENTICATION = /authenticat|\bsca\b|\b3-?d[ -]?s(?:ecure)?\b/i;

const text = (s: string) => scrubText(s).slice(0, 255);

/** The Payment API's name=value answer; anything else (a proxy's page, a cut body) is malformed. */
export function parsePaymentAnswer(body: string): PaymentAnswer {
  const fields = new URLSearchParams(body.trim());
  const response = fields.get('response');
  if (response !== '1' && response !== '2' && response !== '3') throw new GatewayError('unknown', 'NMI answered with a body that is not a Payment API answer');
  const answer: PaymentAnswer = {
    response, responsetext: fields.get('responsetext') ?? '', response_code: (fields.get('response_code') ?? '').trim(),
    transactionid: (fields.get('transactionid') ?? '').trim(), merchant_advice_code: (fields.get('merchant_advice_code') ?? '').trim(),
  };
  // An approval without its transaction id cannot be refunded: reconcile it by order id instead.
  if (response === '1' && answer.transactionid === '') throw new GatewayError('unknown', 'NMI approved without a transaction id');
  return answer;
}

/** An approval or a decline; a refusal of the call itself is a GatewayError 'rejected'. */
export function fromPayment(a: PaymentAnswer): GatewayAnswer {
  const processorRef = a.transactionid || 'unknown';
  const rawMessage = a.responsetext ? { rawMessage: text(a.responsetext) } : {};
  if (a.response === '1') return { approved: true, responseCode: '00', processorRef, rawCode: a.response_code || '100', ...rawMessage };
  if (a.response === '3' && !isDecline(a.response_code)) {
    const code = a.response_code || undefined;
    throw new GatewayError('rejected', `NMI refused the call: ${text(a.responsetext) || 'no reason given'} (response_code ${code ?? 'none'})`, code ? { code } : {});
  }
  const rawCode = a.response_code || undefined;
  const authentication = AUTHENTICATION.test(a.responsetext);
  return {
    approved: false,
    responseCode: authentication ? '1A' : isoCodeFor('nmi', rawCode),
    ...(a.merchant_advice_code ? { adviceCode: a.merchant_advice_code } : {}),
    ...(authentication ? { challenge: '3ds' as const } : {}),
    processorRef,
    ...(rawCode ? { rawCode } : {}),
    ...rawMessage,
  };
}

/** An HTTP status other than 200: 429 is NMI's system-wide rate limit ("Rate Limits"). */
export function statusError(status: number, what: string): GatewayError {
  if (status === 429) return new GatewayError('rejected', `NMI is rate limiting the account (HTTP 429, ${what})`, { status });
  if (status >= 400 && status < 500) return new GatewayError('rejected', `NMI refused the ${what} (HTTP ${status})`, { status });
  return new GatewayError('unknown', `NMI answered the ${what} with HTTP ${status}`, { status });
}

/**
 * A failed exchange: before the connection was made nothing can have reached NMI (refused,
 * DNS, an untrusted certificate, a timeout while connecting); after it, the call may have.
 */
export function transportError(err: unknown, sent: boolean, what: string): GatewayError {
  const e = err as { name?: string; code?: string };
  const why = e.name === 'AbortError' || e.name === 'TimeoutError' || e.code === 'ABORT_ERR' ? 'no answer in time' : (e.code ?? 'connection error');
  return sent ? new GatewayError('unknown', `NMI ${what}: ${why} after the call was sent`) : new GatewayError('not_sent', `NMI could not be reached for the ${what} (${why})`);
}

export interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string): string {
  return s.replace(/&(#x[0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[a-z]+)?;?/g, (whole, ref: string | undefined) => {
    if (!ref || !whole.endsWith(';')) throw new SyntaxError('a bare & in XML text');
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const c = ENTITIES[ref];
    if (c === undefined) throw new SyntaxError(`unknown XML entity &${ref};`);
    return c;
  });
}

const TAG = /^([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)$/;

/**
 * A strict reader for the Query API's small documents: elements, text, entities, comments
 * and CDATA. No DTD (so no entity expansion), one root, every tag closed by its own name;
 * attributes are checked and dropped. Anything else throws.
 */
export function parseXml(src: string): XmlNode {
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  let i = src.startsWith('\uFEFF') ? 1 : 0;
  const fail = (why: string): never => { throw new SyntaxError(`${why} (offset ${i})`); };
  const skip = (open: string, close: string, at: number) => {
    const end = src.indexOf(close, at + open.length);
    if (end === -1) fail(`unterminated ${open}`);
    i = end + close.length;
    return src.slice(at + open.length, end);
  };
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const between = src.slice(i, lt === -1 ? src.length : lt);
    if (stack.length > 0) stack.at(-1)!.text += decode(between);
    else if (between.trim() !== '') fail('text outside the root element');
    if (lt === -1) break;
    if (src.startsWith('<?', lt)) { if (root || stack.length > 0) fail('a declaration inside the document'); skip('<?', '?>', lt); continue; }
    if (src.startsWith('<!--', lt)) { skip('<!--', '-->', lt); continue; }
    if (src.startsWith('<![CDATA[', lt)) { const data = skip('<![CDATA[', ']]>', lt); if (stack.length === 0) fail('CDATA outside the root'); stack.at(-1)!.text += data; continue; }
    if (src.startsWith('<!', lt)) fail('a DTD or declaration');
    const tag = skip('<', '>', lt);
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1).trim()) fail(`</${tag.slice(1)}> closes nothing open`);
      if (stack.length === 0) root = open;
      continue;
    }
    const m = TAG.exec(tag);
    if (!m) return fail(`a malformed tag <${tag.slice(0, 40)}>`);
    if (stack.length === 0 && root) fail('a second root element');
    if (stack.length >= 32) fail('elements nested too deep');
    const node: XmlNode = { name: m[1]!, children: [], text: '' };
    stack.at(-1)?.children.push(node);
    if (m[3] !== '/') stack.push(node);
    else if (stack.length === 0) root = node;
  }
  if (stack.length > 0 || !root) fail('an unterminated document');
  return root!;
}

const childText = (node: XmlNode, name: string) => node.children.find((c) => c.name === name)?.text.trim() ?? '';

/** The Query API's document, or a GatewayError of `refusedKind` when it refused the query. */
export function readQuery(body: string, refusedKind: GatewayErrorKind): XmlNode {
  let root: XmlNode;
  try {
    root = parseXml(body);
  } catch (err) {
    throw new GatewayError('unknown', `NMI's Query API answered with XML we cannot read: ${text((err as Error).message)}`);
  }
  if (root.name !== 'nm_response') throw new GatewayError('unknown', `NMI's Query API answered <${root.name}>, not <nm_response>`);
  const refused = root.children.find((c) => c.name === 'error_response');
  if (refused) throw new GatewayError(refusedKind, `NMI's Query API refused the query: ${text(refused.text.trim()) || 'no reason given'}`, { code: 'query_error' });
  return root;
}

/**
 * One transaction of the Query API as the Payment API would have answered its sale; undefined
 * for a transaction without a sale (a refund listed under the charge's order id).
 */
function saleOf(t: XmlNode): PaymentAnswer | undefined {
  const id = childText(t, 'transaction_id');
  // "unknown: An unknown error was encountered while processing this transaction."
  if (childText(t, 'condition') === 'unknown') throw new GatewayError('unknown', `NMI does not know the outcome of transaction ${id || '?'} either (condition unknown)`);
  const sale = t.children.find((c) => c.name === 'action' && childText(c, 'action_type') === 'sale');
  if (!sale) return undefined;
  if (id === '') throw new GatewayError('unknown', 'NMI\'s Query API listed a sale without its transaction id');
  const code = childText(sale, 'response_code');
  const response = childText(sale, 'success') === '1' ? '1' : isDecline(code) || code === '' ? '2' : '3';
  return { response, responsetext: childText(sale, 'response_text'), response_code: code, transactionid: id, merchant_advice_code: '' };
}

/**
 * The sale made under this order id, or null when NMI positively lists none. A sale that went
 * through wins over declines of the same key; otherwise the latest one answers.
 */
export function fromQuery(root: XmlNode, orderId: string): GatewayAnswer | null {
  const mine = root.children.filter((c) => c.name === 'transaction' && childText(c, 'order_id') === orderId).map(saleOf).filter((a) => a !== undefined);
  if (mine.length === 0) return null;
  return fromPayment(mine.find((a) => a.response === '1') ?? mine.at(-1)!);
}
