// The SFTP abuse list, sent with ssh2's client so each request's SSH_FX_* status can be read
// exactly (the OpenSSH client turns them into messages and cannot send some requests at all):
// ways out of the chroot, the neighbour's folder, links, renames and setstat, writes past the
// size limit and the quotas, odd names. Each must be answered with its status; afterwards
// nothing may exist outside the abuser's inbound/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type OpenMode, type SFTPWrapper, type Stats } from 'ssh2';
import type { Stack } from './daemon.ts';
import { crash, ok, wrong, type Result, type Tally } from './verdict.ts';

/** SSH_FX_* (draft-ietf-secsh-filexfer-02). */
export const FX = { OK: 0, NO_SUCH_FILE: 2, DENIED: 3, FAILURE: 4, BAD_MESSAGE: 5, UNSUPPORTED: 8 } as const;
const FX_NAME: Record<number, string> = { ...Object.fromEntries(Object.entries(FX).map(([k, v]) => [v, k])), [-2]: 'OK, but the mode was applied' };

/** Quotas the daemon runs with (daemon.ts), small enough to cross in a few requests. */
export const SFTP_BOUNDS = { maxFileSizeBytes: 4 * 1024 * 1024, quotaBytes: 6 * 1024 * 1024, quotaFiles: 64, quotaFolders: 3, maxFolderDepth: 2 };

type Op = (sftp: SFTPWrapper) => Promise<void>;

export interface SftpCase {
  label: string;
  name: string;
  op: Op;
  /** The status the last request must get. */
  status: number;
}

const code = (err: unknown): number => (err === undefined ? FX.OK : ((err as { code?: number }).code ?? -1));
const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));

const open = (s: SFTPWrapper, path: string, flags: OpenMode) => call<Buffer>((cb) => s.open(path, flags, cb));
const close = (s: SFTPWrapper, h: Buffer) => call<void>((cb) => s.close(h, cb));
const write = (s: SFTPWrapper, h: Buffer, data: Buffer, at: number) => call<void>((cb) => s.write(h, data, 0, data.length, at, cb));
/** Writes `data` at `at` in a new file and closes it: the whole of a put. */
async function put(s: SFTPWrapper, path: string, data: Buffer, at = 0): Promise<void> {
  const h = await open(s, path, 'w');
  try {
    await write(s, h, data, at);
  } finally {
    await close(s, h).catch(() => {});
  }
}

function cases(st: Stack): SftpCase[] {
  const them = st.b.sftpUsername;
  const one = Buffer.from('x');
  const c = (label: string, name: string, status: number, op: Op): SftpCase => ({ label: `SFTP · ${label}`, name, op, status });
  const statOf = (path: string): Op => (s) => call((cb) => s.stat(path, cb)).then(() => {});
  const keep = '/inbound/keep.txt';
  return [
    c('path traversal', 'stat ../', FX.DENIED, statOf('..')),
    c('path traversal', 'stat /inbound/../../..', FX.DENIED, statOf('/inbound/../../..')),
    c('path traversal', 'open /../../etc/passwd', FX.DENIED, (s) => open(s, '/../../etc/passwd', 'r').then(() => {})),
    c('path traversal', 'put inbound/../../x.json', FX.DENIED, (s) => put(s, 'inbound/../../x.json', one)),
    c('path traversal', 'opendir /inbound/../..', FX.DENIED, (s) => call((cb) => s.opendir('/inbound/../..', cb)).then(() => {})),
    c('absolute paths', 'open /etc/passwd', FX.DENIED, (s) => open(s, '/etc/passwd', 'r').then(() => {})),
    c('absolute paths', 'opendir /tmp', FX.DENIED, (s) => call((cb) => s.opendir('/tmp', cb)).then(() => {})),
    c('absolute paths', 'put /x.json at the root', FX.DENIED, (s) => put(s, '/x.json', one)),
    c('absolute paths', 'put /outbound/x.json', FX.DENIED, (s) => put(s, '/outbound/x.json', one)),
    c('absolute paths', 'mkdir /outbound/x', FX.DENIED, (s) => call((cb) => s.mkdir('/outbound/x', cb))),
    c('absolute paths', 'rmdir /inbound', FX.DENIED, (s) => call((cb) => s.rmdir('/inbound', cb))),
    c("the neighbour's folder", `opendir /${them}`, FX.DENIED, (s) => call((cb) => s.opendir(`/${them}`, cb)).then(() => {})),
    c("the neighbour's folder", `put /../${them}/inbound/x.json`, FX.DENIED, (s) => put(s, `/../${them}/inbound/x.json`, one)),
    c("the neighbour's folder", `put /${them}/inbound/x.json`, FX.DENIED, (s) => put(s, `/${them}/inbound/x.json`, one)),
    c("the neighbour's folder", `stat /inbound/../../${them}/outbound`, FX.DENIED, statOf(`/inbound/../../${them}/outbound`)),
    c('links, renames, setstat', 'symlink /etc/passwd → /inbound/l.json', FX.DENIED, (s) => call((cb) => s.symlink('/etc/passwd', '/inbound/l.json', cb))),
    c('links, renames, setstat', 'readlink /inbound/keep.txt', FX.DENIED, (s) => call((cb) => s.readlink(keep, cb)).then(() => {})),
    c('links, renames, setstat', 'rename keep.txt → /outbound/keep.txt', FX.DENIED, (s) => call((cb) => s.rename(keep, '/outbound/keep.txt', cb))),
    c('links, renames, setstat', `rename keep.txt → /../${them}/inbound/keep.txt`, FX.DENIED, (s) => call((cb) => s.rename(keep, `/../${them}/inbound/keep.txt`, cb))),
    c('links, renames, setstat', 'rename /outbound → /inbound/o', FX.DENIED, (s) => call((cb) => s.rename('/outbound', '/inbound/o', cb))),
    c('links, renames, setstat', 'rename keep.txt onto an existing file', FX.FAILURE, (s) => put(s, '/inbound/other.txt', one).then(() => call((cb) => s.rename(keep, '/inbound/other.txt', cb)))),
    c('links, renames, setstat', 'setstat /outbound mode 0777', FX.DENIED, (s) => call((cb) => s.setstat('/outbound', { mode: 0o777 }, cb))),
    c('links, renames, setstat', 'setstat /etc/passwd', FX.DENIED, (s) => call((cb) => s.setstat('/etc/passwd', { mode: 0o777 }, cb))),
    c('links, renames, setstat', 'setstat keep.txt mode 04777 (only the times apply)', FX.OK, async (s) => {
      await call((cb) => s.setstat(keep, { mode: 0o4777 }, cb));
      const st = await call<Stats>((cb) => s.stat(keep, cb));
      if ((st.mode & 0o7777) === 0o4777) throw Object.assign(new Error('the mode was applied'), { code: -2 });
    }),
    c('links, renames, setstat', 'open keep.txt for append', FX.UNSUPPORTED, (s) => open(s, keep, 'a').then(() => {})),
    c('links, renames, setstat', 'write to a file opened for reading', FX.DENIED, async (s) => {
      const h = await open(s, keep, 'r');
      try {
        await write(s, h, one, 0);
      } finally {
        await close(s, h).catch(() => {});
      }
    }),
    c('odd names', 'a NUL byte in the name', FX.BAD_MESSAGE, (s) => put(s, '/inbound/a\u0000b.json', one)),
    c('odd names', 'a 300-byte name', FX.BAD_MESSAGE, (s) => put(s, `/inbound/${'n'.repeat(296)}.json`, one)),
    c('odd names', 'the upload temp prefix .rescued-upload-x', FX.DENIED, (s) => put(s, '/inbound/.rescued-upload-x', one)),
    c('odd names', 'a path through the uploads folder', FX.DENIED, (s) => put(s, '/../.rescued-uploads/x.json', one)),
    c('over quota', `a byte past ${SFTP_BOUNDS.maxFileSizeBytes} bytes`, FX.FAILURE, (s) => put(s, '/inbound/big.txt', one, SFTP_BOUNDS.maxFileSizeBytes)),
    c('over quota', 'a sparse write at 1 TiB', FX.FAILURE, (s) => put(s, '/inbound/sparse.txt', one, 2 ** 40)),
    c('over quota', `bytes: two sparse files of 3.5 MiB (quota ${SFTP_BOUNDS.quotaBytes / 1024 / 1024} MiB)`, FX.FAILURE, (s) =>
      put(s, '/inbound/q1.txt', one, 3.5 * 1024 * 1024).then(() => put(s, '/inbound/q2.txt', one, 3.5 * 1024 * 1024))),
    c('over quota', `files: ${SFTP_BOUNDS.quotaFiles + 1} files`, FX.FAILURE, async (s) => {
      for (let i = 0; i < SFTP_BOUNDS.quotaFiles; i++) await put(s, `/inbound/f${i}.txt`, one);
    }),
    c('over quota', `depth: folders ${SFTP_BOUNDS.maxFolderDepth + 1} deep`, FX.FAILURE, async (s) => {
      let path = '/inbound/d0';
      await call((cb) => s.mkdir(path, cb));
      for (let i = 0; i < SFTP_BOUNDS.maxFolderDepth; i++) await call((cb) => s.mkdir((path += `/n${i}`), cb));
    }),
    c('over quota', `folders: ${SFTP_BOUNDS.quotaFolders + 1} folders`, FX.FAILURE, async (s) => {
      // The depth case left two folders: the loop crosses the quota before it ends.
      for (let i = 0; i <= SFTP_BOUNDS.quotaFolders; i++) await call((cb) => s.mkdir(`/inbound/e${i}`, cb));
    }),
  ];
}

function connect(st: Stack): Promise<{ client: Client; sftp: SFTPWrapper }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.on('error', reject);
    client.on('ready', () => client.sftp((err, sftp) => (err ? reject(err) : resolve({ client, sftp }))));
    client.connect({ host: '127.0.0.1', port: st.sftpPort, username: st.a.sftpUsername, privateKey: readFileSync(st.key), readyTimeout: 20_000 });
  });
}

/** What lies outside the abuser's inbound/: the neighbour's folders must be empty, the root hold only homes. */
function escaped(st: Stack): string[] {
  const root = join(st.dataDir, 'sftp');
  const out: string[] = [];
  for (const area of ['inbound', 'outbound']) for (const n of readdirSync(join(root, st.b.sftpUsername, area))) out.push(`${st.b.sftpUsername}/${area}/${n}`);
  for (const n of readdirSync(root)) if (![st.a.sftpUsername, st.b.sftpUsername, '.host-keys'].includes(n)) out.push(n);
  for (const n of readdirSync(join(root, st.a.sftpUsername))) if (!['inbound', 'outbound', '.rescued-uploads'].includes(n)) out.push(`${st.a.sftpUsername}/${n}`);
  return out;
}

export async function runSftp(st: Stack, tally: Tally): Promise<void> {
  const started = Date.now();
  let conn = await connect(st);
  const list = cases(st);
  await put(conn.sftp, '/inbound/keep.txt', Buffer.from('kept'));
  for (const c of list) {
    let result: Result;
    try {
      const status = await c.op(conn.sftp).then(() => FX.OK as number, code);
      result = status === c.status ? ok : wrong(`${FX_NAME[status] ?? status}; expected ${FX_NAME[c.status]}`);
    } catch (err) {
      result = crash((err as Error).message);
    }
    if (st.exited()) result = crash('the daemon exited');
    tally.add(c.label, c.name, result);
    if (result.kind === 'crash') conn = await connect(st).catch(() => conn);
  }
  conn.client.end();
  const outside = escaped(st);
  if (outside.length) tally.flag('SFTP · path traversal', 'files outside the chroot', wrong(outside.slice(0, 5).join(', ')));
  process.stdout.write(`  SFTP: ${list.length} requests in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
