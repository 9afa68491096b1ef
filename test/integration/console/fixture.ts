// The side-port app with the console on, over a fresh test database seeded with the report
// data set: build() with an operator token configured as the daemon would have it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build } from '../../../src/http/app.ts';
import { createApiDeps } from '../../../src/http/api.ts';
import { createConsoleDeps } from '../../../src/http/console/deps.ts';
import { createTokenService, type TokenService } from '../../../src/auth/tokens.ts';
import { authenticateClient } from '../../../src/auth/authenticate-client.ts';
import { createFailureThrottle } from '../../../src/auth/failure-throttle.ts';
import { createTokenizationKeyAuthenticator } from '../../../src/auth/tokenization-key.ts';
import { isClientActive } from '../../../src/db/queries/client-status.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createVault } from '../../../src/vault/service.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { ManualClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { freshDatabase, silentLog, type DbKind, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { NOW, seedReportData, type Seeded } from '../reports/seed.ts';

export interface ConsoleFixture {
  app: FastifyInstance;
  tdb: TestDatabase;
  seeded: Seeded;
  tokens: TokenService;
  /** The operator token (its SHA-256 is the configured console.operatorTokenSha256). */
  operatorToken: string;
  clock: ManualClock;
  close(): Promise<void>;
}

export async function consoleFixture(kind: DbKind, opts: { livePollMs?: number } = {}): Promise<ConsoleFixture> {
  const tdb = await freshDatabase(kind);
  const db = tdb.database.db;
  const seeded = await seedReportData(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-console-'));
  const operatorToken = `rco_${randomBytes(32).toString('base64url')}`;
  const config = loadConfig({ env: { RESCUED_DATA_DIR: dataDir, RESCUED_CONSOLE_OPERATOR_TOKEN_SHA256: createHash('sha256').update(operatorToken).digest('hex') } });
  const clock = new ManualClock(NOW);
  const tokens = createTokenService({
    signingKeys: { k1: key32() }, activeSigningKeyId: 'k1', issuer: 'rescued', lifetimeSeconds: 600,
    isClientActive: (merchantId, clientId) => isClientActive(db, merchantId, clientId), activeCacheMs: 0,
  });
  const vault = createVault({ db, ring: keyRingFrom({ v1: key32() }, 'v1'), fingerprintKey: key32(), mode: 'sandbox', testCards: sandboxTestCards() });
  const app = await build({
    log: silentLog,
    tokens,
    authenticateClient: (id, secret) => authenticateClient(db, id, secret),
    authenticateTokenizationKey: createTokenizationKeyAuthenticator(db),
    authThrottle: createFailureThrottle({ failuresPerClient: 1000, failuresPerAddress: 1000, failureWindowSeconds: 60 }),
    vault,
    pingDatabase: () => tdb.database.ping(),
    bodyLimitBytes: 65_536,
    trustProxy: false,
    isDraining: () => false,
    api: createApiDeps({ db, vault, processor: undefined, mode: 'sandbox', clock, log: silentLog, config: config.api }),
    operatorConsole: { ...createConsoleDeps(config, db, silentLog, clock)!, livePollMs: opts.livePollMs ?? 5000 },
  });
  await app.ready();
  return {
    app, tdb, seeded, tokens, operatorToken, clock,
    async close() {
      await app.close();
      await tdb.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
