// Every database test runs against PGlite, and also against the PostgreSQL server when
// TEST_DATABASE_URL is set: each test file gets its own database there, dropped afterwards.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';

export type DbKind = 'pglite' | 'postgres';

export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export const silentLog = createLogger({ level: 'silent' });

export interface TestDatabase {
  database: Database;
  /** postgres:// URL of the per-file database (postgres kind only). */
  url: string | undefined;
  dispose(): Promise<void>;
}

/** A fresh, migrated, empty database of the given kind. */
export async function freshDatabase(kind: DbKind, opts: { poolSize?: number; pgliteDir?: string } = {}): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const database = await openDatabase({ url: '', pgliteDir: opts.pgliteDir, poolSize: 1, log: silentLog });
    await database.migrate();
    return { database, url: undefined, dispose: () => database.close() };
  }
  const { url, drop } = await createServerDatabase();
  const database = await openDatabase({ url, poolSize: opts.poolSize ?? 4, log: silentLog });
  await database.migrate();
  return {
    database,
    url,
    async dispose() {
      await database.close();
      await drop();
    },
  };
}

/** Creates an empty database on the TEST_DATABASE_URL server; `drop` removes it. */
export async function createServerDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `rescued_t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
