// A side-port app over a fresh test database, with a merchant service, for HTTP tests.
import type { FastifyInstance } from 'fastify';
import { build } from '../../src/http/app.ts';
import { createTokenService, type TokenService } from '../../src/auth/tokens.ts';
import { authenticateClient } from '../../src/auth/authenticate-client.ts';
import { createFailureThrottle, type FailureThrottleSettings } from '../../src/auth/failure-throttle.ts';
import { isClientActive } from '../../src/db/queries/client-status.ts';
import { createMerchantService, type MerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom, type KeyRing } from '../../src/vault/cipher.ts';
import { createVault, type Vault } from '../../src/vault/service.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';
import { createTokenizationKeyAuthenticator } from '../../src/auth/tokenization-key.ts';
import type { Logger } from '../../src/log.ts';
import type { Processor } from '../../src/processors/types.ts';
import type { Clock } from '../../src/clock.ts';
import { createApiDeps } from '../../src/http/api.ts';
import type { ApiDeps } from '../../src/http/guard.ts';
import { ConfigSchema, type Config } from '../../src/config/index.ts';
import { Value } from '@sinclair/typebox/value';
import { freshDatabase, silentLog, type DbKind, type TestDatabase } from './db.ts';
import { key32 } from './keys.ts';

export interface TestApp {
  app: FastifyInstance;
  tdb: TestDatabase;
  tokens: TokenService;
  merchants: MerchantService;
  vault: Vault;
  keyRing: KeyRing;
  draining: { value: boolean };
  api: ApiDeps;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Default: silent. */
  log?: Logger;
  /** Default: sandbox (only whitelisted test cards). */
  mode?: 'sandbox' | 'production';
  now?: () => Date;
  /** Tokenization-key cache (default 0: every call reads the database). */
  keyCacheMs?: number;
  /** PGlite data folder, as the daemon has (default: in memory). */
  pgliteDir?: string;
  /** PostgreSQL connections (default 4). */
  poolSize?: number;
  /** Card-insert statements in flight at once. */
  writeConcurrency?: number;
  /** The processor behind evaluate, challenge and refund (default: none, those answer 503). */
  processor?: Processor | ((deps: { db: TestDatabase['database']['db']; vault: Vault }) => Processor);
  /** Merchant-status cache of the bearer check (default 0: every request reads the database; the daemon's is 5 s). */
  activeCacheMs?: number;
  /** Clock of the merchant API (default: the system clock). */
  clock?: Clock;
  /** PEM certificate and key: the app speaks HTTPS (listen to use it). */
  tls?: { cert: Buffer; key: Buffer };
  /** Limits of failed authentications (default: too high to meet). */
  authThrottle?: FailureThrottleSettings;
  /** Overrides of the config's `api` section (defaults otherwise). */
  api?: Partial<ApiSettings>;
}

type ApiSettings = ReturnType<typeof apiDefaults>;
const apiDefaults = () => Value.Default(ConfigSchema.properties.api, {}) as Config['api'];

export async function testApp(kind: DbKind, setup?: (app: FastifyInstance, tokens: TokenService) => void, opts: TestAppOptions = {}): Promise<TestApp> {
  const tdb = await freshDatabase(kind, { poolSize: opts.poolSize, pgliteDir: opts.pgliteDir });
  const db = tdb.database.db;
  const tokens = createTokenService({
    signingKeys: { k1: key32() },
    activeSigningKeyId: 'k1',
    issuer: 'rescued',
    lifetimeSeconds: 600,
    isClientActive: (merchantId, clientId) => isClientActive(db, merchantId, clientId),
    activeCacheMs: opts.activeCacheMs ?? 0,
  });
  const mode = opts.mode ?? 'sandbox';
  const keyRing = keyRingFrom({ v1: key32() }, 'v1');
  const merchants = createMerchantService({ db, vault: keyRing, mode });
  const vault = createVault({ db, ring: keyRing, fingerprintKey: key32(), mode, testCards: sandboxTestCards(), now: opts.now, writeConcurrency: opts.writeConcurrency });
  const draining = { value: false };
  const processor = typeof opts.processor === 'function' ? opts.processor({ db, vault }) : opts.processor;
  // A high default rate limit: tests of other behaviour must not meet it.
  const config = { ...apiDefaults(), rateLimitPerSecond: 10_000, rateLimitBurst: 10_000, ...opts.api };
  const api = createApiDeps({ db, vault, processor, mode, clock: opts.clock, log: opts.log ?? silentLog, config });
  const app = await build({
    log: opts.log ?? silentLog,
    tokens,
    authenticateClient: (id, secret) => authenticateClient(db, id, secret),
    authenticateTokenizationKey: createTokenizationKeyAuthenticator(db, { cacheMs: opts.keyCacheMs ?? 0 }),
    // Generous unless the test is about throttling: tests of refusals send many bad secrets.
    authThrottle: createFailureThrottle(opts.authThrottle ?? { failuresPerClient: 10_000, failuresPerAddress: 10_000, failureWindowSeconds: 60 }),
    vault,
    pingDatabase: () => tdb.database.ping(),
    bodyLimitBytes: 65_536,
    trustProxy: false,
    tls: opts.tls,
    isDraining: () => draining.value,
    api,
  });
  setup?.(app, tokens);
  await app.ready();
  return {
    app,
    tdb,
    tokens,
    merchants,
    vault,
    keyRing,
    draining,
    api,
    async close() {
      await app.close();
      await tdb.dispose();
    },
  };
}
