// Hostile batch files at full size against the real daemon (`rescued serve` on PostgreSQL,
// the default intake limits): every shape of test/helpers/hostile.ts in every place, plain and
// gzip, grown to --bytes (default 320 MiB unpacked, the size of the file that once took a
// daemon to 4.37 GiB), plus that very file (5,200 header keys of 63 KB `[[],…]`, gzip). Each is
// placed in the merchant's inbound/ as an upload leaves it, and its ack awaited. Meanwhile the
// daemon's RSS is sampled and /healthz asked five times a second. Baseline, in the same run:
// the daemon's peak RSS while it ingests a valid file of --valid-entries entries.
// Fails (exit 1) when the peak passes --max-rss-mib (256: the intake budget of docs/
// performance.md), /healthz misses an answer, or a file ends without an ack.
// `npm run bench -- hostile [--seed N] [--cases N] [--bytes N] [--valid-entries N] [--only shape-place]`
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createServerDatabase } from '../helpers/db.ts';
import { hostileCases, writeHostileFile, type FileIds, type HostileCase } from '../helpers/hostile.ts';
import { writeBatch } from '../../samples/generate-batch.ts';
import { waitFor } from '../helpers/wait.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'hostile'),
  options: { seed: { type: 'string', default: '1' }, cases: { type: 'string', default: '18' }, bytes: { type: 'string', default: String(320 * 1024 * 1024) }, 'valid-entries': { type: 'string', default: '50000' }, 'max-rss-mib': { type: 'string', default: '256' }, only: { type: 'string' } },
  strict: false,
});
const SEED = Number(values.seed);
const MIB = 1024 * 1024;
const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'src/main.ts');
// npm start's command line: its environment assignments (MALLOC_ARENA_MAX=2) and Node flags.
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
const START_FLAGS = START.filter((a) => a.startsWith('--'));
const START_ENV = Object.fromEntries(START.slice(0, START.indexOf('node')).map((a) => a.split('=') as [string, string]));

const rssOf = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
const work = mkdtempSync(join(tmpdir(), 'rescued-hostile-'));
const db = await createServerDatabase();
let child: ChildProcess | undefined;
const cleanUp = async () => {
  child?.kill('SIGKILL');
  await db.drop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
};
process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...START_ENV, DATABASE_URL: db.url, RESCUED_DATA_DIR: join(work, 'data'), RESCUED_HTTP_PORT: '0', RESCUED_SFTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '100', RESCUED_ENGINE_ENABLED: 'false', RESCUED_WEBHOOKS_ENABLED: 'false' };
const cli = (args: string[]) => {
  const res = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  if (res.status !== 0) throw new Error(`rescued ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
};

let failed: boolean;
try {
  const m = JSON.parse(cli(['merchant', 'add', '--name', 'Hostile Sender', '--json'])) as { mid: string; siteId: string; clientId: string; clientSecret: string; tokenizationKey: string; sftpUsername: string };
  let out = '';
  child = spawn(process.execPath, [...START_FLAGS, MAIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', () => {});
  const c = child;
  await waitFor(() => {
    if (c.exitCode !== null) throw new Error(`the daemon did not start:\n${out.slice(-3000)}`);
    return /"stage":"http","address"/.test(out);
  }, { what: 'the daemon started', timeoutMs: 120_000, wakeOn: [[c.stdout!, 'data'], [c, 'exit']] });
  const base = /"stage":"http","address":"(http:\/\/[^"]+)"/.exec(out)![1]!;
  const pid = child.pid!;
  const token = ((await (await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: m.clientId, appSecret: m.clientSecret }) })).json()) as { access_token: string }).access_token;
  const tokenized = await fetch(`${base}/v1/tokenize?mid=${m.mid}&environment=${m.tokenizationKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2035' } } }),
  });
  const cardToken = ((await tokenized.json()) as { transaction: { payment_method: { token: string } } }).transaction.payment_method.token;
  const ids: FileIds = { mid: m.mid, siteId: m.siteId, authorizationToken: `Bearer ${token}`, cardToken };
  const home = join(work, 'data', 'sftp', m.sftpUsername);
  for (const f of ['inbound', 'outbound']) mkdirSync(join(home, f), { recursive: true });

  // /healthz five times a second for the whole run; each answer must come within 2 s.
  let asked = 0;
  let missed = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      asked++;
      const ok = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
      if (!ok) missed++;
      await new Promise((r) => setTimeout(r, 200)); // the polling period
    }
  })();

  /** Drops `local` into inbound/ and waits for its ack, sampling RSS; answers the ack and the peak. */
  async function drop(local: string, name: string): Promise<{ ack: Record<string, unknown>; peak: number; seconds: number }> {
    const ackPath = join(home, 'outbound', `${name}.ack.json`);
    const t0 = Date.now();
    copyFileSync(local, join(home, 'inbound', name));
    let peak = rssOf(pid, 'VmRSS');
    while (!existsSync(ackPath)) {
      if (child!.exitCode !== null || child!.signalCode !== null) throw new Error(`the daemon died on ${name}:\n${out.slice(-3000)}`);
      if (Date.now() - t0 > 600_000) throw new Error(`no ack for ${name} after 10 minutes`);
      peak = Math.max(peak, rssOf(pid, 'VmRSS'));
      await new Promise((r) => setTimeout(r, 20)); // the RSS sampling period
    }
    peak = Math.max(peak, rssOf(pid, 'VmRSS'));
    rmSync(local, { force: true });
    return { ack: JSON.parse(readFileSync(ackPath, 'utf8')) as Record<string, unknown>, peak, seconds: (Date.now() - t0) / 1000 };
  }

  const idle = rssOf(pid, 'VmRSS');
  const validPath = join(work, 'valid.json');
  const validOut = createWriteStream(validPath);
  await writeBatch(validOut, { entries: Number(values['valid-entries']), mid: m.mid, siteId: m.siteId, authorizationToken: `Bearer ${token}`, cardTokens: [cardToken], runId: 'hostile-valid' });
  validOut.end();
  await once(validOut, 'finish');
  const valid = await drop(validPath, 'valid.json');
  console.log(`hostile on postgres: seed ${SEED}, ${values.cases} cases of ${(Number(values.bytes) / MIB).toFixed(0)} MiB unpacked, daemon idle at ${(idle / MIB).toFixed(0)} MiB`);
  console.log(`  a valid file of ${values['valid-entries']} entries: peak RSS ${(valid.peak / MIB).toFixed(0)} MiB, ${valid.seconds.toFixed(1)} s, ${(valid.ack as { status: string }).status}  [baseline]`);

  // The review's file first: 5,200 header keys of 63 KB `[[],…]`, gzip (3.5 MB, 328 MB unpacked).
  const finding = join(work, 'finding1.json.gz');
  const gz = createGzip({ level: 9 });
  const findingOut = createWriteStream(finding);
  gz.pipe(findingOut);
  const value = `[${Array(21_000).fill('[]').join(',')}]`;
  gz.write(`{"mid":"${m.mid}","authorizationToken":"Bearer ${token}",`);
  for (let i = 0; i < 5_200; i++) if (!gz.write(`"k${i}":${value},`)) await once(gz, 'drain');
  gz.end('"requests":[]}');
  await once(findingOut, 'finish');
  const cases: Array<{ name: string; local: string; c?: HostileCase }> = [{ name: 'finding1.json.gz', local: finding }];
  const only = typeof values.only === 'string' ? values.only : undefined;
  for (const c of hostileCases(SEED, Number(values.cases), Number(values.bytes))) if (!only || `${c.shape}-${c.place}`.includes(only)) cases.push({ name: `${c.shape}-${c.place}-${c.seed}.json${c.gzip ? '.gz' : ''}`, local: '', c });

  let worst = valid.peak;
  for (const k of cases) {
    if (k.c) {
      k.local = join(work, k.name);
      await writeHostileFile(k.local, k.c, ids);
    }
    const before = rssOf(pid, 'VmRSS');
    const r = await drop(k.local, k.name);
    worst = Math.max(worst, r.peak);
    const err = (r.ack as { error?: { code: string } }).error?.code;
    console.log(`  ${k.name.padEnd(48)} seed ${String(k.c?.seed ?? '-').padEnd(10)} ${(err ?? String(r.ack.status)).padEnd(28)} RSS ${(before / MIB).toFixed(0).padStart(4)} → peak ${(r.peak / MIB).toFixed(0).padStart(4)} MiB  ${r.seconds.toFixed(1).padStart(6)} s`);
  }
  polling = false;
  await poller;
  const hwm = rssOf(pid, 'VmHWM');
  const max = Number(values['max-rss-mib']) * MIB;
  console.log(`  peak RSS over every hostile file: ${(worst / MIB).toFixed(0)} MiB (VmHWM ${(hwm / MIB).toFixed(0)} MiB); ratio ${(worst / valid.peak).toFixed(2)}x of the valid file's`);
  console.log(`  /healthz: ${asked - missed} of ${asked} answered within 2 s`);
  const ok = worst <= max && missed === 0 && child.exitCode === null;
  console.log(`  target: peak ≤ ${values['max-rss-mib']} MiB and /healthz always answering: ${ok ? 'met' : 'NOT met'}`);
  failed = !ok;
} catch (err) {
  console.error(err);
  failed = true;
} finally {
  await cleanUp();
}
process.exit(failed ? 1 : 0);
