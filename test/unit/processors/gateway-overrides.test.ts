// The daemon makes its processor once at start (src/daemon.ts → createProcessor): with
// processor.gatewayUrls set, that logs one warning naming each overridden type and its URL, in
// sandbox and in production mode alike; without it, nothing.
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type ResolvedConfig } from '../../../src/config/index.ts';
import { createLogger } from '../../../src/log.ts';
import { createProcessor, type ProcessorDeps } from '../../../src/processors/index.ts';

const DEFAULTS = Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor'];

/** The JSON lines logged while the processor is made. */
function linesOf(mode: 'sandbox' | 'production', gatewayUrls: Record<string, string>): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const log = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
  // Nothing is called: making the processor reads no database and no vault.
  const deps = { db: {}, vault: {}, ring: {}, log } as unknown as ProcessorDeps;
  createProcessor({ mode, processor: { ...DEFAULTS, gatewayUrls, acknowledgeGatewayUrls: mode === 'production' } }, deps);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('processor.gatewayUrls at start', () => {
  it.each(['sandbox', 'production'] as const)('%s: one warning naming each overridden type and where its charges go', (mode) => {
    const urls = { stripe: 'http://127.0.0.1:12111', adyen: 'https://127.0.0.1:8443/v72' };
    expect(linesOf(mode, urls)).toEqual([
      expect.objectContaining({
        level: 'warn', component: 'processor', mode, gatewayUrls: urls,
        msg: 'processor.gatewayUrls overrides the gateway of stripe, adyen accounts: their charges and credentials go to http://127.0.0.1:12111, https://127.0.0.1:8443/v72',
      }),
    ]);
  });

  it('no override, no warning', () => {
    expect(linesOf('production', {})).toEqual([]);
  });
});
