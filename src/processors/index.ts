// Chooses the processor named by the configuration. Only the sandbox exists so far; a real
// acquirer's adapter implements the same interface (types.ts) and is added here.
import type { ResolvedConfig } from '../config/index.ts';
import { createSandboxProcessor, type SandboxDeps } from './sandbox.ts';
import type { Processor } from './types.ts';

export type { Processor } from './types.ts';

export function createProcessor(config: Pick<ResolvedConfig, 'processor'>, deps: Omit<SandboxDeps, 'latencyMs'>): Processor {
  switch (config.processor.name) {
    case 'sandbox':
      return createSandboxProcessor({ ...deps, latencyMs: config.processor.latencyMs });
  }
}
