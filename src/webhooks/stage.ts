// The webhooks stage of the daemon: one dispatcher per instance, configured from the
// `webhooks` section. Stopping it stops claiming and waits for the POSTs in flight.
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { KeyRing } from '../vault/cipher.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';

/** What the dispatcher takes of the core the daemon opened (src/core.ts, a floor above the stages). */
export interface WebhooksCore {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
  keyRing: KeyRing;
}

export function startWebhooksStage(core: WebhooksCore): Dispatcher {
  const c = core.config.webhooks;
  const dispatcher = createDispatcher({
    db: core.database.db,
    keyRing: core.keyRing,
    log: core.log,
    mode: core.config.mode,
    timeoutMs: c.timeoutMs,
    maxInFlight: c.maxInFlight,
    perEndpointConcurrency: c.perEndpointConcurrency,
    leaseSeconds: c.leaseSeconds,
    pollIntervalMs: c.pollIntervalMs,
    retryDelaysMs: c.retryDelaysMs,
  });
  dispatcher.start();
  core.log.info({ stage: 'webhooks', maxInFlight: c.maxInFlight, perEndpointConcurrency: c.perEndpointConcurrency }, 'stage started');
  return dispatcher;
}
