// A database connection lost in the middle of a transaction (a server restart, a failover, an
// administrator's pg_terminate_backend) fails that transaction and nothing else: the
// statements its body still sends fail with the close's error, none of them runs outside the
// transaction on a reconnected session, and the process does not crash. postgres-js 3.4.9 did
// both (a TypeError thrown from a timer, statements committed on their own); the install
// mends it (.config/patch-postgres.mjs). PGlite runs in this process: it has no connection to lose.
import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noDelaySockets } from '../../../src/db/socket.ts';
import { createServerDatabase, DB_KINDS } from '../../helpers/db.ts';
import { waitFor } from '../../helpers/wait.ts';

// Skipped, and reported as skipped, without a PostgreSQL server (TEST_DATABASE_URL; .ci/run sets it).
describe.skipIf(!DB_KINDS.includes('postgres'))('a connection lost inside a transaction, on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createServerDatabase>>;
  let admin: postgres.Sql;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown): void => void uncaught.push(err);

  beforeAll(async () => {
    db = await createServerDatabase();
    admin = postgres(db.url, { max: 1, onnotice: () => {} });
    await admin`create table lost_rows (n int)`;
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await admin?.end();
    await db?.drop();
  });

  /**
   * Runs a transaction on a one-connection pool whose backend is terminated from outside; once
   * the client has seen the close, `afterLoss` runs, then the body sends one more insert.
   */
  async function loseConnection(afterLoss: (sql: postgres.Sql) => Promise<unknown>): Promise<{ tx: unknown; insert: unknown; sql: postgres.Sql }> {
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    let lost!: () => void;
    const gone = new Promise<void>((r) => (lost = r));
    let insert: Promise<unknown> | undefined;
    const tx = sql.begin(async (t) => {
      await t`insert into lost_rows values (1)`;
      const [row] = await t<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${row!.pid})`;
      await gone;
      await afterLoss(sql);
      insert = t`insert into lost_rows values (2)`.execute();
      await insert;
    });
    const txError = await tx.then(() => null, (err: unknown) => (lost(), err));
    // The body runs on after the transaction failed: its insert is sent, and settles. The race
    // is a bound, not a wait: the insert fails at once when mended, and hung before.
    const sent = await waitFor(() => insert && { insert }, { what: "the body's insert after the loss" });
    const insertError = await Promise.race([sent.insert.then(() => null, (err: unknown) => err), new Promise((r) => setTimeout(() => r('still waiting after 2 s'), 2000))]);
    // A write put off to the closed connection runs from setImmediate (.config/patch-postgres.mjs):
    // after two more turns of the event loop, it has run, and thrown if it throws.
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    return { tx: txError, insert: insertError, sql };
  }

  it('the transaction and the statements its body sends afterwards fail; the process does not crash', async () => {
    const { tx, insert, sql } = await loseConnection(async () => undefined);
    expect(tx).toBeInstanceOf(Error);
    expect(insert).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(uncaught).toEqual([]);
    // The pool recovers for the next caller.
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    await sql.end();
    expect(await admin`select count(*)::int as n from lost_rows`).toEqual([{ n: 0 }]);
  });

  it('a statement of the lost transaction never runs on the session the pool opens next', async () => {
    const { insert, sql } = await loseConnection(async (pool) => {
      // The one connection is opened again for another caller before the body goes on.
      expect(await pool`select 1 as one`).toEqual([{ one: 1 }]);
    });
    expect(insert).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(uncaught).toEqual([]);
    await sql.end();
    expect(await admin`select count(*)::int as n from lost_rows`).toEqual([{ n: 0 }]);
  });

  it('a pool whose server refused every connection for a while connects again once it is back', async () => {
    // The daemon's pool (src/db/client.ts) connects through noDelaySockets; the server stands
    // behind a port that first refuses and then forwards.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const target = new URL(db.url);
    const sql = postgres({ host: '127.0.0.1', port, database: target.pathname.slice(1), username: 'postgres', max: 2, onnotice: () => {}, ...({ socket: noDelaySockets() } as object) });
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port || 5432), target.hostname);
      client.pipe(server).pipe(client);
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
    });
    try {
      // More failures than the pool has connections: each one used to be lost for good.
      for (let i = 0; i < 5; i++) await expect(sql`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', () => r()));
      // A bound, not a wait: the pool answers at once once the server is back, and never did before.
      const answer = await Promise.race([sql`select 1 as one`, new Promise((r) => setTimeout(() => r('no answer after 5 s'), 5000))]);
      expect(answer).toEqual([{ one: 1 }]);
      expect(uncaught).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
      await new Promise((r) => proxy.close(r));
    }
  });
});
