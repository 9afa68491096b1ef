// The webhooks stage of the daemon: one dispatcher per instance, configured from the
// `webhooks` section. Stopping it stops claiming and waits for the POSTs in flight.
import type { Core } from '../core.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';

export function startWebhooksStage(core: Core): Dispatcher {
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
