// SFTP upload throughput with the real OpenSSH client: a 500 MB file to rescued's SFTP
// stage (ssh2, in its own process), beside OpenSSH's own sshd + sftp-server on loopback
// when /usr/sbin/sshd exists (`apt-get install openssh-server`; it is started as the
// current user with a temporary host key and authorized_keys). Median of 3 uploads per
// client setting; peak RSS of each server. No target: figures are reported.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { measure, type Rate } from './lib.ts';
import { run, sftp, SSH_OPTIONS, sshKey } from '../helpers/sftp.ts';
import { createServerDatabase } from '../helpers/db.ts';

const SIZE = 500_000_000;
const ROUNDS = 3;
const SETTINGS: { label: string; args: string[] }[] = [
  { label: 'default cipher (chacha20-poly1305)', args: [] },
  { label: 'aes128-gcm', args: ['-c', 'aes128-gcm@openssh.com'] },
  { label: '-B 261120 -R 64', args: ['-B', '261120', '-R', '64'] },
];
const SSHD = '/usr/sbin/sshd';

const work = mkdtempSync(join(tmpdir(), 'rescued-bench-sftp-'));
const key = sshKey(work);
const file = join(work, 'upload.json');
writeFileSync(file, randomBytes(SIZE));

function firstLine(child: ChildProcess): Promise<Record<string, unknown>> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve) => lines.once('line', (l) => resolve(JSON.parse(l) as Record<string, unknown>)));
}

/** Sum of VmRSS over a process and its descendants, sampled while uploads run. */
function treeRssKiB(root: number): number {
  const children = new Map<number, number[]>();
  let total = 0;
  const walk = (pid: number) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      return;
    }
    for (const child of children.get(pid) ?? []) walk(child);
  };
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)) {
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // the process ended while we looked
    }
  }
  walk(root);
  return total;
}

async function uploads(label: string, put: (args: string[]) => Promise<void>, clean: () => void): Promise<Map<string, Rate>> {
  const rates = new Map<string, Rate>();
  for (const setting of SETTINGS) {
    const runs: Rate[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      runs.push(await measure(`${label}, ${setting.label}`, SIZE / 1e6, () => put(setting.args)));
      clean();
    }
    runs.sort((a, b) => a.perSecond - b.perSecond);
    rates.set(setting.label, runs[1]!);
  }
  return rates;
}

interface OurResult {
  rates: Map<string, Rate>;
  /** Sampled during the uploads. */
  peakRssMiB: number;
  idleRssMiB: number;
  lifetimePeakRssMiB: number;
  nativeCrypto: boolean;
}

/** Samples the RSS of a process tree every 50 ms while `body` runs. */
async function peakRss<T>(pid: number, body: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peakKiB = 0;
  const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, treeRssKiB(pid))), 50);
  try {
    return { result: await body(), peakMiB: Math.round(peakKiB / 1024) };
  } finally {
    clearInterval(sampler);
  }
}

async function rescuedServer(databaseUrl: string): Promise<OurResult> {
  const args = [join(import.meta.dirname, 'sftp-server.ts'), join(work, 'data'), `${key.privatePath}.pub`, databaseUrl];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const info = (await firstLine(child)) as { port: number; username: string; inbound: string; nativeCrypto: boolean; idleRssMiB: number };
  const login = { port: info.port, username: info.username, key: key.privatePath };
  const { result: rates, peakMiB } = await peakRss(child.pid!, () =>
    uploads('rescued (ssh2)', async (args) => {
      const res = await sftp(login, [`put ${file} inbound/upload.json`], args);
      if (res.status !== 0) throw new Error(`upload failed: ${res.stderr}`);
    }, () => rmSync(join(info.inbound, 'upload.json'), { force: true })),
  );
  const done = firstLine(child);
  child.stdin!.end();
  const { lifetimePeakRssMiB } = (await done) as { lifetimePeakRssMiB: number };
  return { rates, peakRssMiB: peakMiB, lifetimePeakRssMiB, idleRssMiB: info.idleRssMiB, nativeCrypto: info.nativeCrypto };
}

async function opensshServer(): Promise<{ rates: Map<string, Rate>; peakRssMiB: number } | undefined> {
  if (!existsSync(SSHD)) return undefined;
  const dir = join(work, 'sshd');
  spawnSync('mkdir', ['-p', join(dir, 'drop')]);
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${key.privatePath}.pub`));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const config = [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password', 'Subsystem sftp /usr/lib/openssh/sftp-server',
  ];
  writeFileSync(join(dir, 'sshd_config'), `${config.join('\n')}\n`);
  spawnSync('mkdir', ['-p', '/run/sshd']);
  const sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    for (let i = 0; i < 50 && (await run('ssh', [...SSH_OPTIONS, '-p', String(port), '-i', key.privatePath, `${userInfo().username}@127.0.0.1`, 'true'])).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    const login = { port, username: userInfo().username, key: key.privatePath };
    const { result: rates, peakMiB } = await peakRss(sshd.pid!, () =>
      uploads('OpenSSH sshd + sftp-server', async (args) => {
        const res = await sftp(login, [`put ${file} ${join(dir, 'drop', 'upload.json')}`], args);
        if (res.status !== 0) throw new Error(`upload failed: ${res.stderr}`);
      }, () => rmSync(join(dir, 'drop', 'upload.json'), { force: true })),
    );
    return { rates, peakRssMiB: peakMiB };
  } finally {
    sshd.kill('SIGTERM');
  }
}

const server = process.env.TEST_DATABASE_URL ? await createServerDatabase() : undefined;
const ours = await rescuedServer(server?.url ?? '').finally(() => server?.drop());
const theirs = await opensshServer();
console.log(`  ${SIZE / 1e6} MB upload with the OpenSSH client, median of ${ROUNDS}; ssh2 native crypto binding: ${ours.nativeCrypto ? 'loaded' : 'NOT loaded (JavaScript ciphers)'}`);
for (const setting of SETTINGS) {
  const a = ours.rates.get(setting.label)!;
  const b = theirs?.rates.get(setting.label);
  const ratio = b ? `  ratio ${(a.perSecond / b.perSecond).toFixed(2)}x` : '';
  console.log(`  ${setting.label.padEnd(36)} rescued ${a.perSecond.toFixed(0).padStart(4)} MB/s${b ? `   OpenSSH ${b.perSecond.toFixed(0).padStart(4)} MB/s [baseline]` : ''}${ratio}`);
}
const db = server ? 'on PostgreSQL' : 'with an in-memory PGlite (set TEST_DATABASE_URL to leave it out)';
console.log(`  RSS of the rescued SFTP process ${db}: ${ours.idleRssMiB} MiB before the uploads, peak ${ours.peakRssMiB} MiB during them (+${ours.peakRssMiB - ours.idleRssMiB}); lifetime peak with start-up ${ours.lifetimePeakRssMiB} MiB`);
console.log(`  ${theirs ? `RSS of OpenSSH: peak ${theirs.peakRssMiB} MiB during the uploads (sum over sshd and its children)` : 'OpenSSH baseline skipped: /usr/sbin/sshd not installed'}`);
console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (2 cores; client and servers share them)`);
rmSync(work, { recursive: true, force: true });
