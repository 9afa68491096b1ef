// A side-port app over a fresh test database, with a merchant service, for HTTP tests.
import type { FastifyInstance } from 'fastify';
import { build } from '../../src/http/app.ts';
import { createTokenService, type TokenService } from '../../src/auth/tokens.ts';
import { authenticateClient } from '../../src/auth/authenticate-client.ts';
import { isMerchantActive } from '../../src/db/queries/merchant-status.ts';
import { createMerchantService, type MerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { freshDatabase, silentLog, type DbKind, type TestDatabase } from './db.ts';
import { key32 } from './keys.ts';

export interface TestApp {
  app: FastifyInstance;
  tdb: TestDatabase;
  tokens: TokenService;
  merchants: MerchantService;
  draining: { value: boolean };
  close(): Promise<void>;
}

export async function testApp(kind: DbKind, setup?: (app: FastifyInstance, tokens: TokenService) => void): Promise<TestApp> {
  const tdb = await freshDatabase(kind);
  const db = tdb.database.db;
  const tokens = createTokenService({
    signingKeys: { k1: key32() },
    activeSigningKeyId: 'k1',
    issuer: 'rescued',
    lifetimeSeconds: 600,
    isMerchantActive: (id) => isMerchantActive(db, id),
    activeCacheMs: 0,
  });
  const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'sandbox' });
  const draining = { value: false };
  const app = await build({
    log: silentLog,
    tokens,
    authenticateClient: (id, secret) => authenticateClient(db, id, secret),
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
    draining,
    async close() {
      await app.close();
      await tdb.dispose();
    },
  };
}
