// Storage and the services every command needs: the daemon builds its stages on it, and the
// CLI opens it without them. Stages name `Core` from here, below the wiring file.
import type { ResolvedConfig } from './config/index.ts';
import type { Logger } from './log.ts';
import { databaseOptionsFor, openDatabase, type Database } from './db/client.ts';
import { isClientActive } from './db/queries/client-status.ts';
import { keyRingFrom, type KeyRing } from './vault/cipher.ts';
import { createTokenService, type TokenService } from './auth/tokens.ts';
import { createMerchantService, type MerchantService } from './merchants/service.ts';
import { createVault, type Vault } from './vault/service.ts';
import { sandboxTestCards } from './vault/test-cards.ts';
import { progressBoard } from './intake/progress-board.ts';

export interface Core {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
  /** The vault key ring (cards, webhook secrets). */
  keyRing: KeyRing;
  /** The card vault: tokenize, reveal, tokenizeAtEdge. */
  vault: Vault;
  tokens: TokenService;
  merchants: MerchantService;
}

/**
 * Storage and the services every command needs; the CLI uses this without the daemon's
 * stages. `opened`: a database already open and migrated, used as it is instead of the
 * configured one (the caller keeps it and closes it).
 */
export async function openCore(config: ResolvedConfig, log: Logger, opened?: Database): Promise<Core> {
  const database = opened ?? (await openMigrated(config, log));
  const keyRing = keyRingFrom(config.vault.keys, config.vault.activeKeyId);
  const tokens = createTokenService({
    signingKeys: config.auth.signingKeys,
    activeSigningKeyId: config.auth.activeSigningKeyId,
    issuer: config.auth.issuer,
    lifetimeSeconds: config.auth.tokenLifetimeSeconds,
    isClientActive: (merchantId, clientId) => clientActive(database, merchantId, clientId),
  });
  const merchants = createMerchantService({ db: database.db, vault: keyRing, mode: config.mode });
  const vault = createVault({
    db: database.db,
    ring: keyRing,
    fingerprintKey: config.vault.fingerprintKey,
    mode: config.mode,
    testCards: config.mode === 'sandbox' ? sandboxTestCards() : undefined,
    // PGlite runs one statement at a time; a server takes several, up to half the pool.
    writeConcurrency: database.kind === 'pglite' ? 1 : Math.max(1, Math.floor(config.database.poolSize / 2)),
  });
  return { config, log, database, keyRing, vault, tokens, merchants };
}

/**
 * On PGlite, while a file's ingest holds the only connection, the answer read just before it
 * (src/intake/progress-board.ts): nothing can revoke a client until the file commits, and the
 * API (GET /v1/batches among it) answers meanwhile instead of waiting for the commit.
 */
async function clientActive(database: Database, merchantId: string, clientId: string): Promise<boolean> {
  const read = () => isClientActive(database.db, merchantId, clientId);
  if (database.kind !== 'pglite') return read();
  const known = await progressBoard(database.db).read(`client ${merchantId} ${clientId}`, read);
  return known ? known.value : read();
}

async function openMigrated(config: ResolvedConfig, log: Logger): Promise<Database> {
  const database = await openDatabase(databaseOptionsFor(config, log));
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
