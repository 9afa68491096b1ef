// The commands that only read (orders, report) open a PostgreSQL database without migrating
// it: one connection, no advisory lock, a check that the schema is this version's. On a
// database never migrated they stop with ERR_DB_NOT_MIGRATED and say what to run; once
// `rescued migrate` has run they answer, and they never migrate it themselves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../../helpers/db.ts';
import { runCli } from '../../helpers/cli.ts';

describe.runIf(process.env.TEST_DATABASE_URL)('read commands on a PostgreSQL database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-read-'));
  let server: { url: string; drop: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  const migrations = async () => {
    const sql = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      return (await sql`select count(*)::int as n from information_schema.tables where table_schema = 'drizzle'`)[0]!.n as number;
    } finally {
      await sql.end();
    }
  };

  beforeAll(async () => {
    server = await createServerDatabase({ migrated: false });
    env = { RESCUED_DATA_DIR: dataDir, DATABASE_URL: server.url };
  });
  afterAll(async () => {
    await server?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('on a database never migrated: ERR_DB_NOT_MIGRATED naming what to run, and nothing migrated', async () => {
    for (const args of [['orders', 'list'], ['orders', 'find', 'ORD-1'], ['report']]) {
      const res = await runCli(args, env);
      expect(res.status, args.join(' ')).toBe(1);
      expect(res.stderr, args.join(' ')).toBe('rescued: The database is not migrated to this version of rescued: run `rescued migrate`, or start the daemon (it migrates at start).\n');
    }
    expect(await migrations()).toBe(0);
  });

  it('after rescued migrate they answer', async () => {
    expect((await runCli(['migrate'], env)).status).toBe(0);
    const listed = await runCli(['orders', 'list'], env);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('(no orders)\n');
    const report = await runCli(['report', '--json'], env);
    expect(report.status, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).overall.orders).toBe(0);
  });
});
