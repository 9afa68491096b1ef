// An in-process SFTP stage over a fresh test database, and the real OpenSSH client (`sftp`,
// `ssh`, `ssh-keygen`) to talk to it. The clients run as child processes with async spawn:
// a synchronous spawn would block the event loop the server runs on.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from '../../src/config/index.ts';
import { createLogger } from '../../src/log.ts';
import { createMerchantService, type MerchantCredentials, type MerchantService } from '../../src/merchants/service.ts';
import type { ReadyFile } from '../../src/sftp/handover.ts';
import { startSftp, type SftpStage } from '../../src/sftp/server.ts';
import { loadHostKeys } from '../../src/sftp/host-keys.ts';
import { hostKeyDir } from '../../src/sftp/paths.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { freshDatabase, type DbKind, type TestDatabase } from './db.ts';
import { key32 } from './keys.ts';

export const tmp = (prefix = 'rescued-sftp-') => mkdtempSync(join(tmpdir(), prefix));

/** Options every client call uses: no host-key prompts, no agent, no user config. */
export const SSH_OPTIONS = ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR'];

export interface KeyPair {
  privatePath: string;
  publicText: string;
}

export function sshKey(dir: string, name = 'id_ed25519', type = 'ed25519'): KeyPair {
  const privatePath = join(dir, name);
  const res = spawnSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `${name}@test`, '-f', privatePath], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`ssh-keygen failed: ${res.stderr}`);
  return { privatePath, publicText: readFileSync(`${privatePath}.pub`, 'utf8') };
}

export interface ClientResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], input = '', timeoutMs = 60_000): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

export interface Login {
  port: number;
  username: string;
  key: string;
  host?: string;
}

/** `sftp -b -` with the given commands; batch mode stops at the first failing command. */
export function sftp(login: Login, commands: string[], extra: string[] = []): Promise<ClientResult> {
  return run('sftp', [...SSH_OPTIONS, '-P', String(login.port), '-i', login.key, ...extra, '-b', '-', `${login.username}@${login.host ?? '127.0.0.1'}`], `${commands.join('\n')}\n`);
}

export function ssh(login: Login, args: string[]): Promise<ClientResult> {
  return run('ssh', [...SSH_OPTIONS, '-p', String(login.port), '-i', login.key, `${login.username}@${login.host ?? '127.0.0.1'}`, ...args]);
}

export type AuditLine = Record<string, unknown> & { event: string; reason: string | null; path: string | null };

export interface TestSftp {
  stage: SftpStage;
  /** The stage's data folder (the archive is below it). */
  dataDir: string;
  tdb: TestDatabase;
  merchants: MerchantService;
  ready: ReadyFile[];
  lines: Record<string, unknown>[];
  audit(): AuditLine[];
  /** The hand-over's "file offered again: not handed over" lines for this path, by source. */
  offeredAgain(path: string): Array<'sftp' | 'watcher'>;
  /** A merchant with an SFTP key and allowed ranges; `dir` holds its key files. */
  merchant(name: string, cidrs?: string[]): Promise<{ mid: string; login: Login; dir: string; creds: MerchantCredentials }>;
  close(): Promise<void>;
}

export type SftpOverrides = Partial<Config['sftp']>;

let hostKeys: Promise<string> | undefined;

/** Generating the RSA host key takes seconds here: tests share one set, copied into each root. */
async function copyHostKeys(root: string): Promise<void> {
  hostKeys ??= (async () => {
    const dir = join(tmp('rescued-hostkeys-'), '.host-keys');
    await loadHostKeys(dir, createLogger({ level: 'silent' }));
    return dir;
  })();
  cpSync(await hostKeys, hostKeyDir(root), { recursive: true, preserveTimestamps: true });
}

/** `database`: serve over this open test database (its owner disposes of it) instead of a fresh one. */
export async function startTestSftp(kind: DbKind, overrides: SftpOverrides = {}, onFileReady?: (f: ReadyFile) => Promise<void> | void, database?: TestDatabase): Promise<TestSftp> {
  const tdb = database ?? (await freshDatabase(kind));
  const db = tdb.database.db;
  const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'sandbox' });
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const ready: ReadyFile[] = [];
  const dataDir = tmp();
  await copyHostKeys(join(dataDir, 'sftp'));
  const config = { ...(Value.Default(ConfigSchema, {}) as Config).sftp, port: 0, watchStabilityMs: 200, ...overrides };
  const stage = await startSftp({
    config,
    dataDir,
    db,
    log,
    onFileReady: async (f) => {
      ready.push(f);
      await onFileReady?.(f);
    },
  });
  return {
    stage,
    dataDir,
    tdb,
    merchants,
    ready,
    lines,
    audit: () => lines.filter((l) => l.component === 'sftp-audit') as AuditLine[],
    offeredAgain: (path) => lines.filter((l) => l.msg === 'file offered again: not handed over' && l.path === path).map((l) => l.source as 'sftp' | 'watcher'),
    async merchant(name, cidrs = ['127.0.0.1']) {
      const creds = await merchants.add({ name });
      for (const cidr of cidrs) await merchants.allowIp(creds.mid, cidr);
      const dir = tmp('rescued-key-');
      const key = sshKey(dir);
      await merchants.addKey(creds.mid, key.publicText);
      return { mid: creds.mid, dir, creds, login: { port: stage.port, username: creds.sftpUsername, key: key.privatePath } };
    },
    async close() {
      await stage.stop();
      if (!database) await tdb.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
