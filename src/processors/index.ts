// The processor behind every charge: the router (router.ts) sends each one through one of the
// merchant's own gateway accounts. In sandbox mode the built-in sandbox processor (named by
// the configuration) charges for merchants without accounts; in production there is none, so
// an order no account can charge is refused (ERR_PROCESSOR_NO_ACCOUNT), never sent to a sandbox.
import type { ResolvedConfig } from '../config/index.ts';
import type { KeyRing } from '../vault/cipher.ts';
import { createProcessorRouter, type RouterDeps } from './router.ts';
import { createSandboxProcessor, type SandboxDeps } from './sandbox.ts';
import type { Processor } from './types.ts';

export type { Processor } from './types.ts';

/** The built-in sandbox processor alone (tests, benches and the sandbox-only paths). */
export function createSandbox(config: { processor: Pick<ResolvedConfig['processor'], 'name' | 'latencyMs'> }, deps: Omit<SandboxDeps, 'latencyMs'>): Processor {
  switch (config.processor.name) {
    case 'sandbox':
      return createSandboxProcessor({ ...deps, latencyMs: config.processor.latencyMs });
  }
}

export interface ProcessorDeps extends Omit<SandboxDeps, 'latencyMs' | 'log'> {
  ring: KeyRing;
  log: RouterDeps['log'];
  vault: SandboxDeps['vault'] & RouterDeps['vault'];
}

export function createProcessor(config: Pick<ResolvedConfig, 'mode' | 'processor'>, deps: ProcessorDeps): Processor {
  warnOverrides(config, deps.log);
  const sandbox = config.mode === 'sandbox' ? createSandbox(config, deps) : undefined;
  return createProcessorRouter({ db: deps.db, ring: deps.ring, vault: deps.vault, sandbox, mode: config.mode, settings: config.processor, log: deps.log });
}

/**
 * processor.gatewayUrls sends every call of a type, with its account's credentials, somewhere
 * other than the gateway: said at every start, in either mode, so that a set-up left over from
 * testing is seen (production starts with it only when acknowledged: src/config/gateway-urls.ts).
 */
function warnOverrides(config: Pick<ResolvedConfig, 'mode' | 'processor'>, log: RouterDeps['log']): void {
  const urls = config.processor.gatewayUrls;
  const types = Object.keys(urls);
  if (types.length === 0) return;
  log.warn({ component: 'processor', mode: config.mode, gatewayUrls: urls }, `processor.gatewayUrls overrides the gateway of ${types.join(', ')} accounts: their charges and credentials go to ${types.map((t) => urls[t]).join(', ')}`);
}
