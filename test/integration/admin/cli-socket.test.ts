// The daemon's CLI socket in-process, on both databases: a command sent through it prints
// exactly what it prints on the database directly; files and standard input are read on the
// client's side and only when the command reads them; secrets sent over it never reach the
// daemon's log; serve and migrate are refused; a stale socket or a daemon that does not
// answer yet are handled; the socket is owner-only and goes away with the stage.
import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { runCli } from '../../helpers/cli.ts';
import { sshKey } from '../../helpers/sftp.ts';
import { waitFor } from '../../helpers/wait.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { createLogger } from '../../../src/log.ts';
import { buildProgram } from '../../../src/cli/program.ts';
import { commandRunner } from '../../../src/cli/run.ts';
import type { CliIo } from '../../../src/admin/io.ts';
import { startAdminStage, type AdminStage } from '../../../src/admin/server.ts';
import { forwardToDaemon } from '../../../src/admin/client.ts';
import { adminSocketPath } from '../../../src/admin/protocol.ts';

interface Captured {
  io: CliIo;
  out: () => string;
  err: () => string;
  code: () => number;
}

function capture(extra: Partial<CliIo> = {}): Captured {
  let out = '';
  let err = '';
  let code = 0;
  return {
    io: { out: (t) => void (out += t), err: (t) => void (err += t), setExitCode: (c) => void (code = c), ...extra },
    out: () => out,
    err: () => err,
    code: () => code,
  };
}

describe.each(DB_KINDS)('the CLI socket on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-admin-'));
  // The client's configuration: the embedded default on this folder, so commands go to the socket.
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  const lines: Record<string, unknown>[] = [];
  let db: TestDatabase;
  let stage: AdminStage;
  let mid: string;
  /** On the database directly, as without a daemon. */
  const direct = (args: string[], stdin?: string) => runCli(args, env, db.database, stdin);
  /** Through the socket, as beside a running daemon. */
  const viaSocket = (args: string[], stdin?: string) => runCli(args, env, undefined, stdin);

  beforeAll(async () => {
    db = await freshDatabase(kind);
    const config = loadConfig({ env: { RESCUED_DATA_DIR: dataDir, ...(db.url ? { DATABASE_URL: db.url } : {}) } });
    const log = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } }).child({ component: 'admin' });
    stage = (await startAdminStage({ dataDir, config, database: db.database, runCommand: commandRunner(buildProgram), log }))!;
    const add = await direct(['merchant', 'add', '--name', 'Socket Co', '--json']);
    expect(add.status, add.stderr).toBe(0);
    mid = (JSON.parse(add.stdout) as { mid: string }).mid;
  });
  afterAll(async () => {
    await stage?.stop();
    await db?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is a Unix socket only its owner may use, in the data folder', () => {
    const st = statSync(adminSocketPath(dataDir));
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
  });

  it('prints the same output, errors and exit status as the command on the database directly', async () => {
    const keyDir = mkdtempSync(join(tmpdir(), 'rescued-admin-key-'));
    const key = sshKey(keyDir);
    const added = await viaSocket(['merchant', 'add-key', mid, `${key.privatePath}.pub`]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added: ssh-ed25519 SHA256:/);
    const commands = [
      ['merchant', 'list'],
      ['merchant', 'show', mid],
      ['merchant', 'add-key', mid, `${key.privatePath}.pub`],
      ['merchant', 'add-key', mid, join(keyDir, 'missing.pub')],
      ['merchant', 'show', '00000000-0000-4000-8000-000000000000'],
      ['processor', 'list', mid],
      ['webhooks', 'list', '--json'],
      ['orders', 'show', 'no-such-order'],
      ['merchant', 'frobnicate'],
    ];
    for (const args of commands) {
      const [there, here] = [await viaSocket(args), await direct(args)];
      expect(there, args.join(' ')).toEqual(here);
    }
    expect((await viaSocket(['merchant', 'add-key', mid, join(keyDir, 'missing.pub')])).stderr).toBe(`rescued: cannot read ${join(keyDir, 'missing.pub')}: no such file\n`);
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('reads standard input on the client only when the command asks, and never logs it', async () => {
    let asked = 0;
    const quiet = capture({ stdin: async () => (asked++, '') });
    expect(await forwardToDaemon({ dataDir, argv: ['merchant', 'list'], io: quiet.io })).toBe(0);
    expect(asked).toBe(0);
    const secret = 'sk_live_neverlogged0123456789';
    const res = await viaSocket(['processor', 'add', mid, '--type', 'stripe', '--label', 'main'], JSON.stringify({ secretKey: secret }));
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('added stripe account main (default)');
    expect(res.stdout).not.toContain(secret);
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines).toContainEqual(expect.objectContaining({ component: 'admin', command: 'processor add', exitCode: 0, msg: 'CLI command run' }));
  });

  it('refuses serve and migrate: they need the folder to themselves', async () => {
    for (const command of ['serve', 'migrate']) {
      const c = capture();
      expect(await forwardToDaemon({ dataDir, argv: ['-c', '/nowhere.json', command], io: c.io })).toBe(1);
      expect(c.err()).toMatch(new RegExp(`'${command}' is not run by a running daemon`));
      expect(c.out()).toBe('');
    }
  });

  it('answers a client of another protocol version with a clear error', async () => {
    const reply = await rawExchange(adminSocketPath(dataDir), `${JSON.stringify({ t: 'run', v: 99, argv: ['merchant', 'list'], terminal: false })}\n`);
    expect(reply).toContain('"t":"exit","code":1');
    expect(reply).toContain('run the same version of rescued as the daemon');
  });

  it('drops a connection that sends a malformed frame, without logging what it sent', async () => {
    await rawExchange(adminSocketPath(dataDir), 'not json sk_live_malformed123\n');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'CLI socket: malformed frame; connection closed' }));
    expect(JSON.stringify(lines)).not.toContain('sk_live_malformed123');
    // The stage still serves.
    expect((await viaSocket(['merchant', 'list'])).status).toBe(0);
  });
});

/** Writes `text` on a fresh connection and collects everything until the daemon closes it. */
function rawExchange(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = connect(path, () => s.write(text));
    s.on('data', (d) => (got += d));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

describe('finding the daemon', () => {
  const log = createLogger({ level: 'silent' });

  it('a stale socket file with a free folder: nothing forwarded, the caller opens the folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescued-admin-stale-'));
    writeFileSync(adminSocketPath(dir), '');
    writeFileSync(join(dir, 'rescued.lock'), '2147483646'); // no such process
    expect(await forwardToDaemon({ dataDir: dir, argv: ['merchant', 'list'], io: capture().io })).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits while a live process holds the folder and answers once the socket is up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescued-admin-wait-'));
    // A live process other than this one holds the lock: a daemon still starting.
    writeFileSync(join(dir, 'rescued.lock'), String(process.ppid));
    const none = capture();
    const t0 = Date.now();
    expect(await forwardToDaemon({ dataDir: dir, argv: ['merchant', 'list'], io: none.io, waitMs: 300 })).toBeUndefined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);

    const db = await freshDatabase('pglite');
    const config = loadConfig({ env: { RESCUED_DATA_DIR: dir } });
    const c = capture();
    // The forwarder found no socket and asked whether the folder's holder lives (process.kill
    // with signal 0): it is waiting when the socket comes up.
    const kill = vi.spyOn(process, 'kill');
    let forwarded: Promise<number | undefined>;
    try {
      forwarded = forwardToDaemon({ dataDir: dir, argv: ['merchant', 'list'], io: c.io, waitMs: 10_000 });
      await waitFor(() => kill.mock.calls.some(([pid, signal]) => pid === process.ppid && signal === 0), { what: 'the forwarder waiting for the socket' });
    } finally {
      kill.mockRestore();
    }
    const stage = (await startAdminStage({ dataDir: dir, config, database: db.database, runCommand: commandRunner(buildProgram), log }))!;
    expect(await forwarded).toBe(0);
    expect(c.out()).toBe('(no merchants)\n');
    await stage.stop();
    expect(existsSync(adminSocketPath(dir))).toBe(false);
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stop waits for a command that is running, which still delivers its exit status', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescued-admin-stop-'));
    const db = await freshDatabase('pglite');
    const config = loadConfig({ env: { RESCUED_DATA_DIR: dir } });
    const stage = (await startAdminStage({ dataDir: dir, config, database: db.database, runCommand: commandRunner(buildProgram), log }))!;
    let release!: (text: string) => void;
    let asked!: () => void;
    const stdinAsked = new Promise<void>((r) => (asked = r));
    const c = capture({ stdin: () => (asked(), new Promise<string>((r) => (release = r))) });
    const running = forwardToDaemon({ dataDir: dir, argv: ['processor', 'add', '00000000-0000-4000-8000-000000000000', '--type', 'sandbox', '--label', 'x'], io: c.io });
    await stdinAsked;
    let stopped = false;
    const stopping = stage.stop().then(() => (stopped = true));
    // Stopping has begun (the socket takes no new connection); it waits for the command.
    const refused = () => new Promise<boolean>((resolve) => {
      const probe = connect(adminSocketPath(dir));
      probe.once('connect', () => (probe.destroy(), resolve(false)));
      probe.once('error', () => resolve(true));
    });
    await waitFor(refused, { what: 'the socket closed to new connections' });
    expect(stopped).toBe(false);
    release('{}');
    expect(await running).toBe(1);
    expect(c.err()).toContain('No merchant with mid');
    await stopping;
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a data folder whose socket path does not fit a Unix socket address: no stage, a warning', async () => {
    const lines: string[] = [];
    const warn = createLogger({ level: 'warn', destination: { write: (s: string) => void lines.push(s) } });
    const deep = join(tmpdir(), 'x'.repeat(120));
    const stage = await startAdminStage({ dataDir: deep, config: loadConfig({ env: { RESCUED_DATA_DIR: tmpdir() } }), database: undefined as never, runCommand: async () => undefined, log: warn });
    expect(stage).toBeUndefined();
    expect(lines.join('')).toContain('CLI socket path too long');
    expect(await forwardToDaemon({ dataDir: deep, argv: ['merchant', 'list'], io: capture().io })).toBeUndefined();
  });
});
