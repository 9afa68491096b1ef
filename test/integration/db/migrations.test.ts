import { describe, expect, it, afterAll } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER, openDatabase } from '../../../src/db/client.ts';
import { createServerDatabase, DB_KINDS, freshDatabase, silentLog } from '../../helpers/db.ts';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

describe('migrations', () => {
  const out = mkdtempSync(join(tmpdir(), 'rescued-migrations-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('the committed migrations match src/db/schema.ts (drizzle-kit generates nothing new)', () => {
    cpSync(MIGRATIONS_FOLDER, out, { recursive: true });
    const before = readdirSync(out).sort();
    const res = spawnSync(join(process.cwd(), 'node_modules/.bin/drizzle-kit'), ['generate', '--dialect', 'postgresql', '--schema', 'src/db/schema.ts', '--out', relative(process.cwd(), out)] /* drizzle-kit prefixes './' to the path */, {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(process.cwd(), 'node_modules/.bin')}:${process.env.PATH}` },
    });
    expect(res.status, res.stderr).toBe(0);
    expect(readdirSync(out).sort(), 'schema.ts changed without `npm run db:generate`').toEqual(before);
    expect(res.stdout).toMatch(/No schema changes/);
  });

  it.each(DB_KINDS)('apply on %s, twice without harm', async (kind) => {
    const t = await freshDatabase(kind, { empty: true });
    try {
      await t.database.migrate();
      const tables = rowsOf(await t.database.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`)).map((r) => r.table_name);
      expect(tables).toEqual(expect.arrayContaining(['merchants', 'sites', 'api_clients', 'tokenization_keys', 'webhook_endpoints', 'sftp_users', 'sftp_keys', 'sftp_allowed_cidrs']));
      // lz4 where the server has it (the PostgreSQL here does); PGlite keeps the default.
      const [request] = rowsOf(await t.database.db.execute(sql`select attcompression::text as c from pg_attribute where attrelid = 'orders'::regclass and attname = 'request'`));
      expect(request?.c).toBe(kind === 'postgres' ? 'l' : '');
    } finally {
      await t.dispose();
    }
  });

  it.each(DB_KINDS.filter((k) => k === 'postgres'))('apply on %s through its Unix socket, named as libpq names it (?host=/folder)', async () => {
    const { url, drop } = await createServerDatabase();
    const tcp = await openDatabase({ url, poolSize: 1, log: silentLog });
    const [setting] = rowsOf(await tcp.db.execute(sql`select current_setting('unix_socket_directories') as dirs`));
    await tcp.close();
    const folder = String(setting?.dirs).split(',')[0]!.trim();
    const u = new URL(url);
    const database = await openDatabase({ url: `postgres://${u.username}@:${u.port || 5432}${u.pathname}?host=${folder}`, poolSize: 2, log: silentLog });
    try {
      await database.migrate();
      const [row] = rowsOf(await database.db.execute(sql`select inet_client_addr() as addr, current_database() as db, to_regclass('orders')::text as orders`));
      // No client address: the session came through the socket, not over TCP.
      expect(row).toEqual({ addr: null, db: u.pathname.slice(1), orders: 'orders' });
    } finally {
      await database.close();
      await drop();
    }
  });
});
