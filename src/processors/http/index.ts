// The HTTP bridge connector: rescued POSTs each operation to the merchant's endpoint, which
// charges through whatever gateway it has (docs/gateways/http.md). The protocol obliges the
// bridge to answer a repeated Idempotency-Key with its first answer, so an unknown outcome is
// reconciled by sending the same call again (`idempotent: true`); `lookup` asks the bridge
// what it answered under a key. The bridge decides which cards it takes: vault cards are
// sent (`acceptsCards: true`), and so are the gateway's own payment methods.
import { randomUUID } from 'node:crypto';
import { secretKey } from '../../webhooks/signing.ts';
import { GatewayError, type ChargeRequest, type Connector, type ConnectorOptions, type GatewayAnswer, type RefundCall } from '../connector.ts';
import type { HttpBridgeCredentials } from './credentials.ts';
import { checkAnswer, checkLookup, checkTest, type BridgeAnswer, type BridgeRequest } from './protocol.ts';
import { authorizeBody, lookupBody, refundBody, testBody, voidBody } from './request.ts';
import { post, type Target } from './transport.ts';

/** The answer as the contract has it: empty optional strings dropped, extra fields ignored. */
function toAnswer(a: BridgeAnswer): GatewayAnswer {
  const { approved, responseCode, processorRef, adviceCode, challenge, rawCode, rawMessage, networkTransactionId } = a;
  return {
    approved, responseCode: responseCode.toUpperCase(), processorRef,
    ...(adviceCode ? { adviceCode } : {}), ...(challenge && !approved ? { challenge } : {}), ...(rawCode ? { rawCode } : {}),
    ...(rawMessage ? { rawMessage } : {}), ...(networkTransactionId ? { networkTransactionId } : {}),
  };
}

/** Where in the answer the protocol was broken (a JSON pointer), never a value from it. */
const firstError = (errors: Iterable<{ path: string }>) => [...errors][0]?.path || '/';

export function createHttpBridgeConnector(credentials: HttpBridgeCredentials, opts: ConnectorOptions): Connector {
  // ConnectorOptions.baseUrl (processor.gatewayUrls.http) is for tests: it replaces every
  // bridge's URL.
  const target: Target = { url: new URL(opts.baseUrl ?? credentials.url), key: secretKey(credentials.secret), timeoutMs: opts.timeoutMs };

  async function answerOf(request: BridgeRequest): Promise<GatewayAnswer> {
    const got = await post(target, request);
    if (!checkAnswer.Check(got)) throw new GatewayError('unknown', `the bridge's ${request.operation} answer is not in the protocol (at ${firstError(checkAnswer.Errors(got))})`, { status: 200, code: 'malformed_answer' });
    return toAnswer(got);
  }

  async function lookup(req: { idempotencyKey: string; reference: string }): Promise<GatewayAnswer | null> {
    const got = await post(target, lookupBody(randomUUID(), req));
    if (!checkLookup.Check(got)) throw new GatewayError('unknown', `the bridge's lookup answer is not in the protocol (at ${firstError(checkLookup.Errors(got))})`, { status: 200, code: 'malformed_answer' });
    return got.found ? toAnswer(got as BridgeAnswer) : null;
  }

  async function test(): Promise<string> {
    const got = await post(target, testBody(randomUUID()));
    if (!checkTest.Check(got)) throw new GatewayError('unknown', 'the bridge\'s test answer is not in the protocol', { status: 200, code: 'malformed_answer' });
    return `the bridge accepted a signed test call${got.message ? ` and said: ${got.message.slice(0, 120)}` : ''}`;
  }

  return {
    type: 'http',
    idempotent: true,
    acceptsCards: true,
    authorize: (req: ChargeRequest) => answerOf(authorizeBody(req)),
    refund: (req: RefundCall) => answerOf(refundBody(req)),
    void: (req: Omit<RefundCall, 'amount'>) => answerOf(voidBody(req)),
    lookup,
    test,
  };
}

/** The connector factory the registry loads by the gateway's name (src/processors/registry.ts). */
export default createHttpBridgeConnector;
