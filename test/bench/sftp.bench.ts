// SFTP upload throughput with the real OpenSSH client: a 500 MB file to rescued's SFTP
// stage (ssh2, in its own process, run with the Node flags and environment of `npm start`),
// beside OpenSSH's own sshd + sftp-server on loopback when /usr/sbin/sshd exists
// (`apt-get install -y openssh-server`; it is started as the current user with a temporary
// host key and authorized_keys). After one upload each to warm up, the two servers take turns
// upload by upload, so a change in the machine's load falls on both; median of `--rounds` (3)
// per client setting.
// Beside MB/s: CPU seconds per upload of each server and of the client (ssh + sftp), which
// a busy machine disturbs far less than wall time, and the cipher an unmodified client picks.
// Target: ≥ 1.2× OpenSSH with the client's defaults. `--profile DIR` writes a CPU profile of
// the rescued server; `--mb N` changes the file size.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { run, SSH_OPTIONS, sshKey, type Login } from '../helpers/sftp.ts';
import { createServerDatabase } from '../helpers/db.ts';
import { CIPHERS, decryptCpuMs, nativeBinding } from './sftp-ciphers.ts';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, mb: { type: 'string', default: '500' }, profile: { type: 'string' } }, strict: false });
const SIZE = Number(opts.mb) * 1e6;
const ROUNDS = Number(opts.rounds);
const TARGET = 1.2;
const SETTINGS: { label: string; args: string[] }[] = [
  { label: 'client defaults', args: [] },
  { label: '-c aes128-gcm@openssh.com', args: ['-c', 'aes128-gcm@openssh.com'] },
  { label: '-B 261120 -R 64', args: ['-B', '261120', '-R', '64'] },
];
const SSHD = '/usr/sbin/sshd';
const SFTP_SERVER = '/usr/lib/openssh/sftp-server';
const ROOT = join(import.meta.dirname, '..', '..');
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const work = mkdtempSync(join(tmpdir(), 'rescued-bench-sftp-'));
const key = sshKey(work);
const file = join(work, 'upload.json');
writeFileSync(file, randomBytes(SIZE));

/** The Node flags and environment settings of `npm start` (package.json): the server runs as the daemon does. */
function daemonStart(): { flags: string[]; env: Record<string, string> } {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const settings = words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]);
  return { flags: words.filter((w) => w.startsWith('--')), env: Object.fromEntries(settings) as Record<string, string> };
}
const START = daemonStart();

function lines(child: ChildProcess): () => Promise<Record<string, unknown>> {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => (waiting.length ? waiting.shift()!(l) : queue.push(l)));
  return () => new Promise((resolve) => {
    const take = (l: string) => resolve(JSON.parse(l) as Record<string, unknown>);
    if (queue.length) take(queue.shift()!);
    else waiting.push(take);
  });
}

/** [utime + stime, the same of reaped children] of a process, in seconds. */
function cpuOf(pid: number): [number, number] {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [(Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND];
}

/** Sum of VmRSS over a process and its descendants. */
function treeRssKiB(root: number): number {
  const children = new Map<number, number[]>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)) {
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  const walk = (pid: number) => {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return;
    }
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return total;
}

interface Upload {
  mbPerSecond: number;
  serverCpu: number;
  clientCpu: number;
}

interface Server {
  name: string;
  login: Login;
  dest: string;
  pid: number;
  /** sshd forks per connection: its CPU shows in the master's reaped children. */
  childrenCpu: boolean;
  clean(): void;
  peakKiB: number;
}

/**
 * One `sftp -b` put, through a shell that prints its own /proc stat afterwards: the
 * children's CPU there is sftp's and ssh's (sftp waits for ssh, the shell for sftp).
 */
async function upload(server: Server, args: string[]): Promise<Upload> {
  const before = cpuOf(server.pid);
  const sftpArgs = [...SSH_OPTIONS, '-P', String(server.login.port), '-i', server.login.key, ...args, '-b', '-', `${server.login.username}@127.0.0.1`];
  const sampler = setInterval(() => (server.peakKiB = Math.max(server.peakKiB, treeRssKiB(server.pid))), 50);
  const started = process.hrtime.bigint();
  const res = await run('sh', ['-c', 'sftp "$@"; status=$?; cat /proc/$$/stat >&2; exit $status', 'sh', ...sftpArgs], `put ${file} ${server.dest}\n`, 600_000);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  if (res.status !== 0) throw new Error(`${server.name}: upload failed: ${res.stderr}`);
  // sshd reaps its per-connection child a moment after the client has gone.
  if (server.childrenCpu) await new Promise((r) => setTimeout(r, 300));
  const after = cpuOf(server.pid);
  const shell = res.stderr.trim().split('\n').at(-1)!.split(') ')[1]!.split(' ');
  server.clean();
  return {
    mbPerSecond: SIZE / 1e6 / seconds,
    serverCpu: server.childrenCpu ? after[1] - before[1] : after[0] - before[0],
    clientCpu: (Number(shell[13]) + Number(shell[14])) / TICKS_PER_SECOND,
  };
}

/** The cipher an unmodified client negotiates, from `sftp -v`. */
async function negotiatedCipher(server: Server): Promise<string> {
  const res = await run('sftp', [...SSH_OPTIONS, '-v', '-P', String(server.login.port), '-i', server.login.key, '-b', '-', `${server.login.username}@127.0.0.1`], 'pwd\n');
  return /kex: client->server cipher: (\S+)/.exec(res.stderr)?.[1] ?? 'unknown';
}

async function startRescued(databaseUrl: string): Promise<{ server: Server; info: Record<string, unknown>; stop: () => Promise<Record<string, unknown>> }> {
  const profile = typeof opts.profile === 'string' ? ['--cpu-prof', '--cpu-prof-dir', opts.profile] : [];
  const args = [...START.flags, ...profile, join(import.meta.dirname, 'sftp-server.ts'), join(work, 'data'), `${key.privatePath}.pub`, databaseUrl];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...START.env } });
  const next = lines(child);
  const info = (await next()) as { port: number; username: string; inbound: string };
  const server: Server = {
    name: 'rescued',
    login: { port: info.port, username: info.username, key: key.privatePath },
    dest: 'inbound/upload.json',
    pid: child.pid!,
    childrenCpu: false,
    clean: () => rmSync(join(info.inbound, 'upload.json'), { force: true }),
    peakKiB: 0,
  };
  return {
    server,
    info,
    stop: async () => {
      child.stdin!.end();
      return next();
    },
  };
}

async function startOpenssh(): Promise<{ server: Server; stop: () => void } | string> {
  if (!existsSync(SSHD) || !existsSync(SFTP_SERVER)) return `OpenSSH baseline skipped: ${SSHD} or ${SFTP_SERVER} not installed (apt-get install -y openssh-server); no ratio`;
  const dir = join(work, 'sshd');
  spawnSync('mkdir', ['-p', join(dir, 'drop')]);
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${key.privatePath}.pub`));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const config = [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password', `Subsystem sftp ${SFTP_SERVER}`,
  ];
  writeFileSync(join(dir, 'sshd_config'), `${config.join('\n')}\n`);
  spawnSync('mkdir', ['-p', '/run/sshd']);
  const sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const login = { port, username: userInfo().username, key: key.privatePath };
  for (let i = 0; i < 50 && (await run('ssh', [...SSH_OPTIONS, '-p', String(port), '-i', key.privatePath, `${login.username}@127.0.0.1`, 'true'])).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  const dest = join(dir, 'drop', 'upload.json');
  return { server: { name: 'OpenSSH', login, dest, pid: sshd.pid!, childrenCpu: true, clean: () => rmSync(dest, { force: true }), peakKiB: 0 }, stop: () => sshd.kill('SIGTERM') };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(uploads: Upload[]): Upload {
  return { mbPerSecond: median(uploads.map((u) => u.mbPerSecond)), serverCpu: median(uploads.map((u) => u.serverCpu)), clientCpu: median(uploads.map((u) => u.clientCpu)) };
}

const database = process.env.TEST_DATABASE_URL ? await createServerDatabase() : undefined;
const ours = await startRescued(database?.url ?? '');
const theirs = await startOpenssh();
const servers = typeof theirs === 'string' ? [ours.server] : [ours.server, theirs.server];
const results = new Map<string, Map<string, Upload[]>>(servers.map((s) => [s.name, new Map(SETTINGS.map((st) => [st.label, []]))]));
const ciphers = await Promise.all(servers.map(async (s) => `${s.name} ${await negotiatedCipher(s)}`));
// Let sshd reap the connections so far, so their CPU is not counted in the first upload.
await new Promise((r) => setTimeout(r, 500));
try {
  // One upload each first, not counted: JIT, page cache and first allocations warm up.
  for (const server of servers) await upload(server, []);
  for (const server of servers) server.peakKiB = 0;
  for (const setting of SETTINGS) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers) results.get(server.name)!.get(setting.label)!.push(await upload(server, setting.args));
    }
  }
} finally {
  if (typeof theirs !== 'string') theirs.stop();
}
const { lifetimePeakRssMiB } = (await ours.stop()) as { lifetimePeakRssMiB: number };
await database?.drop();

const version = spawnSync('ssh', ['-V'], { encoding: 'utf8' }).stderr.trim().split(',')[0];
console.log(`  ${SIZE / 1e6} MB upload with the OpenSSH client (${version}), median of ${ROUNDS}, the servers taking turns`);
const startLine = [...Object.entries(START.env).map(([k, v]) => `${k}=${v}`), ...START.flags].join(' ') || '(none)';
console.log(`  rescued: ssh2 native crypto binding ${ours.info.nativeCrypto ? 'loaded' : 'NOT loaded (JavaScript ciphers)'}; run as npm start runs the daemon: ${startLine}`);
console.log(`  cipher an unmodified client negotiates: ${ciphers.join(', ')}`);
const fmt = (u: Upload) => `${u.mbPerSecond.toFixed(0).padStart(4)} MB/s  CPU s ${u.serverCpu.toFixed(2)} server + ${u.clientCpu.toFixed(2)} client`;
for (const setting of SETTINGS) {
  const a = summary(results.get('rescued')!.get(setting.label)!);
  const b = typeof theirs === 'string' ? undefined : summary(results.get('OpenSSH')!.get(setting.label)!);
  const ratio = b ? `  ratio ${(a.mbPerSecond / b.mbPerSecond).toFixed(2)}x (CPU ${((b.serverCpu + b.clientCpu) / (a.serverCpu + a.clientCpu)).toFixed(2)}x less)` : '';
  console.log(`  ${setting.label.padEnd(26)} rescued ${fmt(a)}${b ? ` | OpenSSH ${fmt(b)} [baseline]` : ''}${ratio}`);
  if (setting.args.length === 0 && b) {
    const r = a.mbPerSecond / b.mbPerSecond;
    console.log(`  target ≥ ${TARGET}× OpenSSH with the client's defaults: ${r >= TARGET ? 'met' : 'NOT met'} (${r.toFixed(2)}×)`);
  }
}
const mb = (kib: number) => Math.round(kib / 1024);
const db = database ? 'on PostgreSQL' : 'with an in-memory PGlite (set TEST_DATABASE_URL to leave it out)';
console.log(`  RSS of the rescued SFTP process ${db}: ${ours.info.idleRssMiB} MiB before the uploads, peak ${mb(ours.server.peakKiB)} MiB during them; lifetime peak with start-up ${lifetimePeakRssMiB} MiB`);
console.log(`  ${typeof theirs === 'string' ? theirs : `RSS of OpenSSH: peak ${mb(theirs.server.peakKiB)} MiB during the uploads (sshd and its children)`}`);
decryptCpuMs(CIPHERS[0]!, 1); // warms the code up
const decrypt = CIPHERS.map((c) => `${c} ${decryptCpuMs(c, SIZE / 1e6).toFixed(0)} ms`);
console.log(`  ssh2 decrypting ${SIZE / 1e6} MB (${nativeBinding ? 'native binding' : 'JavaScript'}), CPU: ${decrypt.join(', ')}`);
console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (client and servers share the machine's cores)`);
rmSync(work, { recursive: true, force: true });
