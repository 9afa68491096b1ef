// docs/operations.md's upgrade and roll back, on both databases: today's code started on a database
// written by a previous commit. No release is tagged yet, so the previous release is PREVIOUS,
// the last commit before migration 0008_intake_starts: its src/ and samples/ are taken with
// `git archive` (CI clones the whole history) and run on the checkout's node_modules. The old
// code migrates, adds a merchant, tokenizes a card and makes an MIT order; today's daemon
// applies the newer migrations at start and carries on with them; then the old code starts
// again on the upgraded database (the roll back).
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/client.ts';
import { rowsOf } from '../helpers/webhooks.ts';
import { cleanEnv, startDaemon, tempDir, type RunningDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';
import { evaluateBody, SOFT } from '../helpers/api.ts';
import { merchantClient } from '../helpers/merchant-client.ts';
import { waitFor } from '../helpers/wait.ts';

const PREVIOUS = 'feaf8ad^';
const CHECKOUT = join(import.meta.dirname, '../..');
const JOURNAL = JSON.parse(readFileSync(join(CHECKOUT, 'src/db/migrations/meta/_journal.json'), 'utf8')) as { entries: unknown[] };

/** The previous commit's code in a folder of its own, on today's dependencies. */
function previousRelease(): string {
  const dir = tempDir('rescued-previous-');
  const archive = spawnSync('sh', ['-c', `git -C "$0" archive "$1" src samples package.json | tar -x -C "$2"`, CHECKOUT, PREVIOUS, dir], { encoding: 'utf8' });
  if (archive.status !== 0) throw new Error(`cannot take ${PREVIOUS} from the repository's history (a shallow clone?): ${archive.stderr}`);
  symlinkSync(join(CHECKOUT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** A command of the previous release, to its end. */
function previousCli(dir: string, args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [join(dir, 'src/main.ts'), ...args], { cwd: dir, env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });
}

/** The previous release's daemon, until its http stage has started; then SIGTERM and exit 0. */
async function withPreviousDaemon(dir: string, env: NodeJS.ProcessEnv, body: (base: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [join(dir, 'src/main.ts'), 'serve'], { cwd: dir, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const base = await waitFor(() => {
      const m = /"stage":"http","address":"(http:\/\/[^"]+)"/.exec(out);
      if (m) return m[1]!;
      if (child.exitCode !== null) throw new Error(`the previous release exited ${child.exitCode}:\n${out}`);
      return undefined;
    }, { what: 'the previous release\'s http stage', timeoutMs: 60_000, wakeOn: [[child.stdout, 'data'], [child.stderr, 'data'], [child, 'exit']], detail: () => out.slice(-4000) });
    await body(base);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
}

const httpBase = async (daemon: RunningDaemon) => (await daemon.waitFor(/"stage":"http","address":"(http:\/\/[^"]+)"/))[1]!;

describe.each(DB_KINDS)(`upgrade from ${PREVIOUS} on %s`, (kind) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  it('today\'s daemon migrates a database of the previous release and carries on; the previous release runs on it again', async () => {
    const old = previousRelease();
    // One data folder for both: in sandbox mode it holds the generated vault and signing keys.
    const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: tempDir('rescued-upgrade-'), RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false' };
    if (kind === 'postgres') {
      const db = await createServerDatabase();
      drop = db.drop;
      env.DATABASE_URL = db.url;
    }
    /** Migrations applied, read with no daemon holding the database. */
    const applied = async () => {
      const database = await openDatabase({ url: env.DATABASE_URL ?? '', pgliteDir: pgliteDirFor(env.RESCUED_DATA_DIR!), poolSize: 1, log: silentLog });
      try {
        return Number(rowsOf(await database.db.execute(sql`select count(*) as n from drizzle.__drizzle_migrations`))[0]!.n);
      } finally {
        await database.close();
      }
    };

    // Its first command migrates the new database to its own migrations.
    const add = previousCli(old, ['merchant', 'add', '--name', 'Before Upgrade', '--json'], env);
    expect(add.status, add.stderr).toBe(0);
    const creds = JSON.parse(add.stdout) as Record<string, string>;
    let cardToken = '';
    let orderKey = '';
    await withPreviousDaemon(old, env, async (base) => {
      const api = merchantClient(base, creds);
      cardToken = await api.tokenize('4111111111111111');
      orderKey = (await api.call('/evaluate', evaluateBody(cardToken, { mit: true }))).json.orderSessionKey as string;
      await waitFor(async () => (await api.call('/v1/outcome', { orderSessionKey: orderKey })).json.status !== 'SUBMITTED', { what: 'the MIT order planned by the previous release' });
    });
    expect(await applied()).toBeLessThan(JOURNAL.entries.length);

    // Today's code: the rest of the migrations at start, then the old data carries on.
    const daemon = startDaemon(env);
    const api = merchantClient(await httpBase(daemon), creds);
    const shown = await runCli(['orders', 'show', orderKey, '--json'], env);
    expect(shown.status, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'PENDING' });
    expect((await api.call('/v1/evaluate', evaluateBody(cardToken, { tx: SOFT }))).json).toMatchObject({ result: 'Success', status: 'APPROVED' });
    expect((await api.call(`/v1/orders/${orderKey}/cancel`, {})).json.status).toBe('CANCELLED');
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    expect(await applied()).toBe(JOURNAL.entries.length);

    // Roll back: the previous release starts on the upgraded database and serves its merchant.
    await withPreviousDaemon(old, env, async (base) => {
      const outcome = await merchantClient(base, creds).call('/v1/outcome', { orderSessionKey: orderKey });
      expect(outcome.json.status).toBe('CANCELLED');
    });
  });
});
