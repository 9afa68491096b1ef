// Chroot resolution. A merchant sees `/` = its home, holding `inbound/` (write) and
// `outbound/` (read only). Every client path is normalised lexically first: a `..` that
// would climb above `/` is refused (that is also the only way to name another merchant's
// folder), and only the two folders exist below `/`. The real path is then checked on disk:
// a symbolic link anywhere on the way is refused, so a link placed inside a home (by anyone)
// can never lead out of it.
import { mkdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UPLOAD_TEMP_DIR } from './names.ts';
import { Refusal } from './refusal.ts';

export const INBOUND = 'inbound';
export const OUTBOUND = 'outbound';
export type Area = 'root' | 'inbound' | 'outbound';

/** Usernames are generated (`<slug>-<mid prefix>`); anything else never becomes a path. */
const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The SFTP data root: `sftp.rootDir`, or `<dataDir>/sftp` when empty. */
export function sftpRootDir(dataDir: string, rootDir: string): string {
  return rootDir ? resolve(rootDir) : join(dataDir, 'sftp');
}

/** Where the host keys live: beside the homes, so replicas sharing the root share them too. */
export function hostKeyDir(root: string): string {
  return join(root, '.host-keys');
}

export interface UserDirs {
  home: string;
  inbound: string;
  outbound: string;
}

export function userDirs(root: string, username: string): UserDirs {
  if (!USERNAME.test(username) || username.includes('..')) throw new Error(`unsafe SFTP username: ${JSON.stringify(username)}`);
  const home = join(root, username);
  return { home, inbound: join(home, INBOUND), outbound: join(home, OUTBOUND) };
}

/**
 * Creates a user's folders if missing: inbound/, outbound/ and the uploads folder (uploads
 * being written; names.ts, UPLOAD_TEMP_DIR), which the merchant never sees. `realHome` has
 * links resolved.
 */
export async function ensureUserDirs(root: string, username: string): Promise<UserDirs & { uploads: string; realHome: string }> {
  const dirs = userDirs(root, username);
  const uploads = join(dirs.home, UPLOAD_TEMP_DIR);
  await mkdir(dirs.inbound, { recursive: true, mode: 0o750 });
  await mkdir(dirs.outbound, { recursive: true, mode: 0o750 });
  await mkdir(uploads, { recursive: true, mode: 0o750 });
  return { ...dirs, uploads, realHome: await realpath(dirs.home) };
}

export interface VirtualPath {
  /** Normalised, absolute inside the chroot: "/", "/inbound", "/inbound/a.json". */
  path: string;
  area: Area;
  /** Segments below the area folder ([] for the folder itself). */
  below: string[];
}

/** Lexical normalisation; relative paths are taken from `/` (the client's start folder). */
export function normaliseVirtual(input: string): VirtualPath {
  if (input.includes('\0')) throw new Refusal('bad_path', 'path contains a NUL byte');
  const segments: string[] = [];
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (segments.length === 0) throw new Refusal('denied', 'path leads outside the home folder');
      segments.pop();
      continue;
    }
    if (Buffer.byteLength(seg) > 255) throw new Refusal('bad_path', 'name too long');
    segments.push(seg);
  }
  const path = `/${segments.join('/')}`;
  const [top, ...below] = segments;
  if (top === undefined) return { path, area: 'root', below };
  if (top === INBOUND || top === OUTBOUND) return { path, area: top, below };
  return { path, area: 'root', below: [top, ...below] };
}

/** The real path of a virtual one inside `home` (which must itself be a real path). */
export function realPathOf(home: string, v: VirtualPath): string {
  const real = v.path === '/' ? home : join(home, v.path);
  if (real !== home && !real.startsWith(`${home}/`)) throw new Refusal('denied', 'path leads outside the home folder');
  return real;
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves symbolic links on disk and refuses the path if any were followed. Returns
 * whether the path exists; a missing path needs an existing, link-free parent.
 */
export async function checkOnDisk(real: string): Promise<'exists' | 'missing'> {
  if (!isAbsolute(real)) throw new Error('checkOnDisk needs an absolute path');
  try {
    if ((await realpath(real)) !== real) throw new Refusal('denied', 'symbolic links are not followed');
    return 'exists';
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const parent = dirname(real);
  try {
    if ((await realpath(parent)) !== parent) throw new Refusal('denied', 'symbolic links are not followed');
  } catch (err) {
    if (isNotFound(err)) throw new Refusal('no_such_file', 'no such file or folder');
    throw err;
  }
  return 'missing';
}
