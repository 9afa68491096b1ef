// Opens the database: a PostgreSQL server through the `postgres` driver when a URL is
// configured, otherwise PGlite (PostgreSQL compiled to WASM) in <dataDir>/db, so that
// `npm start` needs no server. Both are driven through the same drizzle schema, and the
// committed migrations are applied before anything else touches the tables.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { sql } from 'drizzle-orm';
import * as schema from './schema.ts';
import { lockDataDir } from './lock.ts';
import type { Logger } from '../log.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { preparingClient } from './prepared.ts';
import { connectionTarget, noDelaySockets } from './socket.ts';
import { assertDriverMended } from './driver-check.ts';
import { readSecretFile } from '../config/secrets.ts';
import { RescuedError } from '../errors.ts';
import { sqlState } from '../sqlstate.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A drizzle transaction handle (inside db.transaction). */
export type Transaction = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Where a query may run: the database or a transaction. */
export type DbOrTx = Transaction | Db;

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Applies the committed migrations; safe to call from several replicas at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Takes the advisory lock `key` for work that spans many transactions (the purge), or
   * answers undefined when another session (another replica, or this process) holds it.
   * The answer releases it; a session that dies releases it too.
   */
  tryLock(key: bigint): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

async function ping(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

export interface DatabaseOptions {
  /** postgres:// URL; empty for PGlite. */
  url: string;
  /** A file holding the server's password (database.passwordFile): read at each connection, never put in the URL. */
  passwordFile?: string | undefined;
  /** PGlite data folder; undefined keeps PGlite in memory (tests). */
  pgliteDir?: string | undefined;
  /**
   * A PGlite data folder as a tarball (PGlite's `dumpDataDir`) to start from instead of
   * an empty cluster: tests load one migrated snapshot rather than run initdb each time.
   */
  pgliteSnapshot?: Blob | undefined;
  poolSize: number;
  log: Logger;
}

export const MIGRATIONS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** pg_advisory_lock key serialising migrations across replicas ("rescued" in ASCII). */
const MIGRATION_LOCK = 0x7265736375656400n;

/**
 * PGlite runs PostgreSQL in this process's memory, so its buffer cache is the daemon's RSS.
 * initdb writes shared_buffers = 128MB, and PGlite touches all of it at start: 140 MiB of an
 * idle daemon's 470 MiB (docs/performance.md, "Idle memory"). A page that misses these
 * buffers is read from the data folder, which the kernel's page cache holds anyway; a
 * working set that needs a large buffer cache is what a PostgreSQL server is for. Applied at
 * every start rather than written into postgresql.conf, so existing data folders get it too.
 */
export const PGLITE_SETTINGS = ['-c', 'shared_buffers=8MB'] as const;

const INITDB_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'pglite-initdb.ts');

/**
 * A new folder's cluster is made by initdb in a child process (pglite-initdb.ts), with this
 * process's Node: what initdb touches then leaves with it instead of staying in the daemon's
 * RSS for good. The result is the folder PGlite would have made here.
 */
function initdbApart(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INITDB_SCRIPT, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`initdb of ${dir} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`))));
  });
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let unlock = () => {};
  if (opts.pgliteDir) {
    mkdirSync(opts.pgliteDir, { recursive: true, mode: 0o700 });
    unlock = lockDataDir(dirname(opts.pgliteDir));
  }
  try {
    if (opts.pgliteDir && !opts.pgliteSnapshot && !existsSync(join(opts.pgliteDir, 'PG_VERSION'))) await initdbApart(opts.pgliteDir);
    // Loaded only when used: PGlite's WASM build adds about 240 MiB of RSS on import, which a
    // deployment on a PostgreSQL server should not pay.
    const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('drizzle-orm/pglite'),
      import('drizzle-orm/pglite/migrator'),
    ]);
    const client = await PGlite.create(opts.pgliteDir, {
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
      ...(opts.pgliteSnapshot ? { loadDataDir: opts.pgliteSnapshot } : {}),
    });
    const db = drizzlePglite({ client, schema });
    const held = new Set<bigint>();
    return {
      db: db as unknown as Db,
      kind: 'pglite',
      migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
      ping: () => ping(db as unknown as Db),
      tryLock: async (key) => inProcessLock(held, key),
      close: async () => {
        await client.close();
        unlock();
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}

/**
 * What every connection to the server is opened with: the URL (a Unix socket as its path),
 * and the password read from database.passwordFile when one is set. The password is a
 * function, which postgres-js calls at each connection: a rotated file is read by the next
 * connection, and the password never sits in an options object that could be logged.
 */
export function serverOptions(opts: Pick<DatabaseOptions, 'url' | 'passwordFile'>): { url: string; options: postgres.Options<Record<string, postgres.PostgresType>> } {
  const target = connectionTarget(opts.url);
  const file = opts.passwordFile;
  return {
    url: target.url,
    options: {
      ...(target.path ? { path: target.path } : {}),
      ...(file ? { password: () => readSecretFile(file, 'database.passwordFile') } : {}),
    },
  };
}

async function migrateServer(opts: DatabaseOptions): Promise<void> {
  // One dedicated connection: an advisory lock belongs to a session, and the pool would
  // hand the unlock to another one.
  const target = serverOptions(opts);
  const conn = postgres(target.url, { ...target.options, max: 1, onnotice: () => {} });
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    // Loaded here: a command that only reads never migrates (openForReading).
    const { migrate: migratePostgres } = await import('drizzle-orm/postgres-js/migrator');
    await migratePostgres(drizzlePostgres({ client: conn, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    await conn`select pg_advisory_unlock(${MIGRATION_LOCK.toString()}::bigint)`;
  } finally {
    await conn.end({ timeout: 5 });
  }
  opts.log.debug('migrations applied');
}

/**
 * PGlite is one session in one process (the data folder's lock file keeps others out), and
 * a session's advisory locks are re-entrant: the lock is this process's own set.
 */
function inProcessLock(held: Set<bigint>, key: bigint): (() => Promise<void>) | undefined {
  if (held.has(key)) return undefined;
  held.add(key);
  return async () => void held.delete(key);
}

/**
 * A session-level advisory lock on a connection of its own, outside the pool: the work it
 * guards runs on the pool in short transactions (a pool of one would otherwise wait on
 * itself), and the lock goes with the connection if the process dies.
 */
async function trySessionLock(url: string, key: bigint): Promise<(() => Promise<void>) | undefined> {
  const target = connectionTarget(url);
  const conn = postgres(target.url, { max: 1, onnotice: () => {}, connection: { application_name: 'rescued-lock' }, ...(target.path ? { path: target.path } : {}) });
  try {
    const [row] = await conn`select pg_try_advisory_lock(${key.toString()}::bigint) as locked`;
    if (row?.locked === true) return () => conn.end({ timeout: 5 });
  } catch (err) {
    await conn.end({ timeout: 5 });
    throw err;
  }
  await conn.end({ timeout: 5 });
  return undefined;
}

function openPostgres(opts: DatabaseOptions): Database {
  assertDriverMended();
  const target = serverOptions(opts);
  const client = postgres(target.url, {
    ...target.options,
    max: opts.poolSize,
    // Errors must never echo bound parameters (they may hold card data) into a log line.
    debug: false,
    onnotice: (n) => opts.log.debug({ notice: n.message }, 'postgres notice'),
    connection: { application_name: 'rescued' },
    // Documented in postgres-js (`socket: fn`), missing from its type declarations.
    ...({ socket: noDelaySockets() } as object),
  });
  const db = drizzlePostgres({ client: preparingClient(client), schema });
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    migrate: () => migrateServer(opts),
    ping: () => ping(db as unknown as Db),
    tryLock: (key) => trySessionLock(opts.url, key),
    close: () => client.end({ timeout: 5 }),
  };
}

/** The options of the configured database: the server's URL and password file, or PGlite in the data folder. */
export function databaseOptionsFor(config: ResolvedConfig, log: Logger): DatabaseOptions {
  return {
    url: config.database.url,
    passwordFile: config.database.passwordFile || undefined,
    pgliteDir: pgliteDirFor(config.dataDir),
    poolSize: config.database.poolSize,
    log: log.child({ component: 'db' }),
  };
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts) : openPglite(opts);
}

/** The time drizzle records for the last migration this code ships (its journal's `when`). */
function latestMigration(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> };
  return Math.max(...journal.entries.map((e) => e.when));
}

/** Throws ERR_DB_NOT_MIGRATED unless the server's schema has every migration this code ships. */
async function assertMigrated(db: Db): Promise<void> {
  let applied = 0;
  try {
    const rows = (await db.execute(sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`)) as unknown as Array<{ at: string | null }>;
    applied = Number(rows[0]?.at ?? 0);
  } catch (err) {
    // No drizzle schema or table yet (3F000, 42P01): nothing was ever migrated.
    if (!['3F000', '42P01'].includes(sqlState(err) ?? '')) throw err;
  }
  if (applied < latestMigration()) throw new RescuedError('ERR_DB_NOT_MIGRATED');
}

/**
 * The database for a command that only reads (orders list/find/show, report): on a server, one
 * connection and no migration, advisory lock or engine, only a check that the schema is the
 * one this code reads (issue 28: migrating took a second connection and most of the
 * command's time). PGlite is opened by this process alone, and migrated as before.
 */
export async function openForReading(opts: DatabaseOptions): Promise<Database> {
  if (!opts.url) {
    const database = await openPglite(opts);
    await database.migrate().catch(async (err: unknown) => {
      await database.close();
      throw err;
    });
    return database;
  }
  const database = openPostgres({ ...opts, poolSize: 1 });
  try {
    await assertMigrated(database.db);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

export function pgliteDirFor(dataDir: string): string {
  return join(dataDir, 'db');
}
