// The daemon under abuse: `rescued serve` as a child process with npm start's Node flags, on a
// scratch PostgreSQL database (created and dropped here) or PGlite in a temporary data folder,
// with two merchants made by the CLI beforehand — the abuser, with an SFTP key allowed from
// 127.0.0.1, and a neighbour whose folder the abuser must never reach.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerDatabase } from '../../helpers/db.ts';
import { sshKey } from '../../helpers/sftp.ts';
import { INTAKE_BOUNDS } from './batch-files.ts';
import { SFTP_BOUNDS } from './sftp-abuse.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MAIN = join(ROOT, 'src/main.ts');
const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((arg) => arg.startsWith('--'));

export type Kind = 'postgres' | 'pglite';

export interface Merchant {
  mid: string;
  siteId: string;
  clientId: string;
  clientSecret: string;
  tokenizationKey: string;
  sftpUsername: string;
}

export interface Stack {
  kind: Kind;
  dataDir: string;
  work: string;
  databaseUrl: string | undefined;
  a: Merchant;
  b: Merchant;
  key: string;
  base: string;
  sftpPort: number;
  /** Everything the daemon printed on stdout (one JSON log line each). */
  stdout(): string;
  exited(): boolean;
  /** Stops the daemon; `start()` runs it again on the same data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** The settings the bench needs: bounds small enough to cross quickly, limits high enough not to be what answers. */
function settings(dataDir: string, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('RESCUED_') && k !== 'DATABASE_URL') env[k] = v;
  return {
    ...env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    RESCUED_DATA_DIR: dataDir,
    RESCUED_HTTP_PORT: '0',
    RESCUED_SFTP_PORT: '0',
    RESCUED_SFTP_WATCH_STABILITY_MS: '100',
    RESCUED_SFTP_MAX_FILE_SIZE_BYTES: String(SFTP_BOUNDS.maxFileSizeBytes),
    RESCUED_SFTP_AUTH_FAILURES_PER_MINUTE: '1000',
    RESCUED_ENGINE_ENABLED: 'false',
    RESCUED_WEBHOOKS_ENABLED: 'false',
    RESCUED_API_RATE_LIMIT_PER_SECOND: '100000',
    RESCUED_API_RATE_LIMIT_BURST: '100000',
    RESCUED_AUTH_FAILURES_PER_ADDRESS: '100000',
    RESCUED_AUTH_FAILURES_PER_CLIENT: '100000',
    RESCUED_INTAKE_MAX_ENTRY_BYTES: String(INTAKE_BOUNDS.maxEntryBytes),
    RESCUED_INTAKE_MAX_KEY_BYTES: String(INTAKE_BOUNDS.maxKeyBytes),
    RESCUED_INTAKE_MAX_UNPACKED_BYTES: String(INTAKE_BOUNDS.maxUnpackedBytes),
    RESCUED_SFTP_QUOTA_BYTES: String(SFTP_BOUNDS.quotaBytes),
    RESCUED_SFTP_QUOTA_FILES: String(SFTP_BOUNDS.quotaFiles),
    RESCUED_SFTP_QUOTA_FOLDERS: String(SFTP_BOUNDS.quotaFolders),
    RESCUED_SFTP_MAX_FOLDER_DEPTH: String(SFTP_BOUNDS.maxFolderDepth),
  };
}

function cli(env: NodeJS.ProcessEnv, args: string[]): string {
  const res = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  if (res.status !== 0) throw new Error(`rescued ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/** A scratch database on the server of TEST_DATABASE_URL (the local one by default), dropped by the caller. */
function serverDatabase() {
  process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
  return createServerDatabase();
}

async function waitFor(read: () => string, pattern: RegExp, child: ChildProcess, timeoutMs = 120_000): Promise<RegExpMatchArray> {
  const started = Date.now();
  for (;;) {
    const m = read().match(pattern);
    if (m) return m;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the daemon exited while starting:\n${read().slice(-3000)}`);
    if (Date.now() - started > timeoutMs) throw new Error(`the daemon did not print ${pattern}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startStack(kind: Kind): Promise<Stack> {
  const work = mkdtempSync(join(tmpdir(), 'rescued-abuse-'));
  const dataDir = join(work, 'data');
  // Whatever fails while setting up, the folder and the scratch database go with it.
  const removeWork = () => rmSync(work, { recursive: true, force: true });
  const db = kind === 'postgres' ? await serverDatabase().catch((err: unknown) => (removeWork(), Promise.reject(err as Error))) : undefined;
  const undo = async (err: unknown): Promise<never> => {
    await db?.drop().catch(() => {});
    removeWork();
    throw err;
  };
  const env = settings(dataDir, db?.url);
  const add = (name: string) => JSON.parse(cli(env, ['merchant', 'add', '--name', name, '--json'])) as Merchant;
  let a: Merchant, b: Merchant, key: ReturnType<typeof sshKey>;
  try {
    a = add('Abuse Shop');
    b = add('Neighbour Shop');
    key = sshKey(work);
    cli(env, ['merchant', 'add-key', a.mid, `${key.privatePath}.pub`]);
    cli(env, ['merchant', 'allow-ip', a.mid, '127.0.0.1']);
  } catch (err) {
    return undo(err);
  }
  let child: ChildProcess | undefined;
  let out = '';
  const stack: Stack = {
    kind, dataDir, work, databaseUrl: db?.url, a, b, key: key.privatePath, base: '', sftpPort: 0,
    stdout: () => out,
    exited: () => !child || child.exitCode !== null || child.signalCode !== null,
    async start() {
      out = '';
      const c = spawn(process.execPath, [...START_FLAGS, MAIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      c.stdout!.on('data', (d) => (out += d));
      c.stderr!.on('data', () => {});
      const [, base] = await waitFor(() => out, /"stage":"http","address":"(http:\/\/[^"]+)"/, c);
      const [, port] = await waitFor(() => out, /"stage":"sftp","address":"[^"]*:(\d+)"/, c);
      stack.base = base!;
      stack.sftpPort = Number(port);
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
    async dispose() {
      await stack.stop();
      await db?.drop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  process.on('exit', () => child?.kill('SIGKILL'));
  try {
    await stack.start();
  } catch (err) {
    await stack.dispose();
    throw err;
  }
  return stack;
}
