// What the order service needs: storage, the vault, the processor (absent until one is
// configured: calls that need it answer 503), time and the API settings.
import type { Db } from '../db/client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Processor } from '../processors/types.ts';
import type { Vault } from '../vault/service.ts';
import type { ModelMode } from '../domain/index.ts';
import { RescuedError } from '../errors.ts';
import { GatewayError } from '../processors/connector.ts';
import type { OwnIdsCheck } from './own-ids.ts';

export interface OrderSettings {
  idempotencyTtlSeconds: number;
  idempotencyInFlightSeconds: number;
  challengeTtlSeconds: number;
  /** How far ahead of our clock a past event's time may be (api.clockSkewSeconds; default 300). */
  clockSkewSeconds?: number;
}

export interface OrderDeps {
  db: Db;
  vault: Pick<Vault, 'tokenizeAtEdge'>;
  processor: Processor | undefined;
  mode: ModelMode;
  clock: Clock;
  log: Logger;
  settings: OrderSettings;
  /** The body's mid and siteId belong to the caller. */
  ownIds: OwnIdsCheck;
  /** The vault's tokenize and look-up, for a card update (POST …/payment-method); absent: 503. */
  cards?: Pick<Vault, 'tokenize' | 'find'>;
}

export function processorOf(deps: OrderDeps): Processor {
  if (!deps.processor) throw new RescuedError('ERR_API_PROCESSOR_UNAVAILABLE', 'No payment processor is configured.');
  return deps.processor;
}

/**
 * A processor failure is never a decline: a gateway that refused the call without judging the
 * card (credentials, rate limit) is the merchant's 502 (the operator was alerted); no answer
 * at all (network, timeout, crash) is a 503. Either way the client may retry with the same
 * idempotencyKey: the attempt key is the same, so nothing is charged twice.
 */
export async function callProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RescuedError) throw err;
    if (err instanceof GatewayError && err.kind === 'rejected') throw new RescuedError('ERR_PROCESSOR_GATEWAY_REJECTED', undefined, [], { cause: err });
    throw new RescuedError('ERR_API_PROCESSOR_UNAVAILABLE', undefined, [], { cause: err });
  }
}
