// A side-port app over a fresh test database, with a merchant service, for HTTP tests.
import type { FastifyInstance } from 'fastify';
import { build } from '../../src/http/app.ts';
import { createTokenService, type TokenService } from '../../src/auth/tokens.ts';
import { authenticateClient } from '../../src/auth/authenticate-client.ts';
import { isMerchantActive } from '../../src/db/queries/merchant-status.ts';
import { createMerchantService, type MerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom, type KeyRing } from '../../src/vault/cipher.ts';
import { createVault, type Vault } from '../../src/vault/service.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';
import { createTokenizationKeyAuthenticator } from '../../src/auth/tokenization-key.ts';
import type { Logger } from '../../src/log.ts';
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
}

export async function testApp(kind: DbKind, setup?: (app: FastifyInstance, tokens: TokenService) => void, opts: TestAppOptions = {}): Promise<TestApp> {
  const tdb = await freshDatabase(kind, { poolSize: opts.poolSize, pgliteDir: opts.pgliteDir });
  const db = tdb.database.db;
  const tokens = createTokenService({
    signingKeys: { k1: key32() },
    activeSigningKeyId: 'k1',
    issuer: 'rescued',
    lifetimeSeconds: 600,
    isMerchantActive: (id) => isMerchantActive(db, id),
    activeCacheMs: 0,
  });
  const mode = opts.mode ?? 'sandbox';
  const keyRing = keyRingFrom({ v1: key32() }, 'v1');
  const merchants = createMerchantService({ db, vault: keyRing, mode });
  const vault = createVault({ db, ring: keyRing, fingerprintKey: key32(), mode, testCards: sandboxTestCards(), now: opts.now, writeConcurrency: opts.writeConcurrency });
  const draining = { value: false };
  const app = await build({
    log: opts.log ?? silentLog,
    tokens,
    authenticateClient: (id, secret) => authenticateClient(db, id, secret),
    authenticateTokenizationKey: createTokenizationKeyAuthenticator(db, { cacheMs: opts.keyCacheMs ?? 0 }),
    vault,
    pingDatabase: () => tdb.database.ping(),
    bodyLimitBytes: 65_536,
    trustProxy: false,
    isDraining: () => draining.value,
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
    async close() {
      await app.close();
      await tdb.dispose();
    },
  };
}
