// One signed POST to the bridge, and what its failure says about the call (connector.ts):
// - no connection, a name that does not resolve, a URL fetch will not use → `not_sent`;
// - a timeout, a reset, a 5xx, a 409 (the first call with this key is still running at the
//   bridge: draft-ietf-httpapi-idempotency-key-header, "Error Scenarios"), a redirect (not
//   followed: the call was made), another 2xx or a 200 whose body is not JSON → `unknown`;
// - any other 4xx → `rejected`: the protocol lets the bridge answer 4xx only when it has
//   charged nothing (a card decline is a 200 with `approved: false`).
// Messages never carry the request, the bridge's own message (it may echo the request) or
// fetch's message (it may print the URL).
import type { KeyObject } from 'node:crypto';
import { signatureHeaders } from '../../webhooks/signing.ts';
import { GatewayError } from '../connector.ts';
import { checkError, type BridgeOperation, type BridgeRequest } from './protocol.ts';

// Error codes of node's fetch (undici) and of the resolver, seen as `err.cause.code`, that
// say the connection was never made; UND_ERR_CONNECT_TIMEOUT is undici's connect timeout.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface Target {
  url: URL;
  key: KeyObject;
  timeoutMs: number;
}

function failure(err: unknown, timeoutMs: number): GatewayError {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return new GatewayError('unknown', `the bridge did not answer within ${timeoutMs} ms`);
  // fetch (node 24's undici) throws a TypeError without a cause when it cannot even build the
  // request, and refuses the ports of the Fetch standard's "bad port" list (fetch.spec.whatwg.org,
  // "port blocking") before connecting, with the cause's message 'bad port'.
  if (e.name === 'TypeError' && e.cause === undefined) return new GatewayError('not_sent', 'the bridge URL cannot be used by fetch', { code: 'invalid_url' });
  if (e.cause?.message === 'bad port') return new GatewayError('not_sent', 'the bridge URL uses a port fetch refuses (the Fetch standard\'s "bad port" list)', { code: 'bad_port' });
  const code = e.cause?.code;
  if (code && NOT_SENT.has(code)) return new GatewayError('not_sent', `the bridge could not be reached (${code})`, { code });
  return new GatewayError('unknown', `the bridge connection failed after the call was sent (${code ?? 'connection error'})`, code ? { code } : {});
}

/** The bridge's error code, when its body is the protocol's and the code cannot be card data. */
function errorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    return checkError.Check(body) && !/\d{6}/.test(body.error.code) ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

function statusError(status: number, text: string): GatewayError {
  const code = errorCode(text);
  const opts = { status, ...(code ? { code } : {}) };
  const said = code ? `: ${code}` : '';
  if (status >= 500) return new GatewayError('unknown', `the bridge answered HTTP ${status}${said}`, opts);
  if (status === 409) return new GatewayError('unknown', `the bridge is still processing the first call with this key (HTTP 409${said})`, opts);
  if (status === 429) return new GatewayError('rejected', `the bridge is rate limiting rescued (HTTP 429${said})`, opts);
  if (status >= 400) return new GatewayError('rejected', `the bridge refused the call (HTTP ${status}${said})`, opts);
  return new GatewayError('unknown', `the bridge answered HTTP ${status}, not 200`, opts);
}

/** Standard Webhooks ids must not contain `.` (spec/standard-webhooks.md, "Signature scheme"). */
const messageId = (operation: BridgeOperation, key: string) => `${operation}:${key}`.replace(/[^A-Za-z0-9:_-]/g, '_');

/** POSTs one request and returns the parsed JSON of its 200 answer. */
export async function post(target: Target, request: BridgeRequest): Promise<unknown> {
  const body = JSON.stringify(request);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'rescued-http-bridge/1',
    'idempotency-key': request.idempotencyKey,
    ...signatureHeaders({ id: messageId(request.operation, request.idempotencyKey), at: new Date(), body, host: target.url.host, keys: [target.key] }),
  };
  let status: number;
  let text: string;
  try {
    const res = await fetch(target.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(target.timeoutMs), redirect: 'error' });
    status = res.status;
    text = await res.text();
  } catch (err) {
    throw failure(err, target.timeoutMs);
  }
  if (status !== 200) throw statusError(status, text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GatewayError('unknown', 'the bridge answered 200 with a body that is not JSON', { status });
  }
}
