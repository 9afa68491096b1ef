// Every database test runs against PGlite, and also against the PostgreSQL server when
// TEST_DATABASE_URL is set: each test file gets its own database there, dropped afterwards.
// Both start as copies of the migrated templates made once per run (global-setup.ts); a
// test about creating or migrating a database asks for an empty one with `empty: true`.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
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

export interface FreshOptions {
  poolSize?: number;
  /** A PGlite data folder (created from the template when it holds nothing yet). */
  pgliteDir?: string;
  /** Start from an empty database and migrate it here, instead of from the template. */
  empty?: boolean;
}

/**
 * What the run's global set-up prepared (the migrated templates), or undefined outside vitest:
 * the benches use these helpers too, and there every database is migrated where it is opened.
 */
function prepared<K extends 'pgliteTemplateTar' | 'pgliteTemplateDir' | 'pgTemplate'>(key: K): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

let tarball: Promise<Blob | undefined> | undefined;
/** The migrated PGlite tarball, read once per test file. */
function pgliteSnapshot(): Promise<Blob | undefined> {
  const path = prepared('pgliteTemplateTar');
  tarball ??= path ? readFile(path).then((b) => new Blob([b])) : Promise.resolve(undefined);
  return tarball;
}

/** Fills an empty or missing PGlite data folder with a copy of the migrated template. */
export function seedPgliteDir(dir: string): void {
  const template = prepared('pgliteTemplateDir');
  if (!template || (existsSync(dir) && readdirSync(dir).length > 0)) return;
  cpSync(template, dir, { recursive: true });
}

/** A fresh, migrated, empty database of the given kind. */
export async function freshDatabase(kind: DbKind, opts: FreshOptions = {}): Promise<TestDatabase> {
  if (kind === 'pglite') {
    if (opts.pgliteDir && !opts.empty) seedPgliteDir(opts.pgliteDir);
    const snapshot = !opts.pgliteDir && !opts.empty ? await pgliteSnapshot() : undefined;
    const database = await openDatabase({ url: '', pgliteDir: opts.pgliteDir, pgliteSnapshot: snapshot, poolSize: 1, log: silentLog });
    await database.migrate();
    return { database, url: undefined, dispose: () => database.close() };
  }
  const { url, drop } = await createServerDatabase({ migrated: !opts.empty });
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

/**
 * Creates a database on the TEST_DATABASE_URL server; `drop` removes it. Empty unless
 * `migrated`, which copies the run's migrated template (CREATE DATABASE … TEMPLATE).
 */
export async function createServerDatabase(opts: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `rescued_t_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? (prepared('pgTemplate') ?? '') : '';
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  // TEST_DATABASE_SOCKET=/var/run/postgresql: the database is used over the server's Unix socket (benches).
  if (process.env.TEST_DATABASE_SOCKET) url.searchParams.set('host', process.env.TEST_DATABASE_SOCKET);
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
