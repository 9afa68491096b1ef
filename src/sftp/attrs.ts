// SFTP attributes and `ls -l` lines. The client shows `longname` as it is, and needs the
// file-type bits in `mode` to tell files from folders (shared/reference/sftp-with-ssh2.md).
import type { Stats } from 'node:fs';
import type { Attributes } from 'ssh2';

export function toAttrs(st: Stats): Attributes {
  return { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000) };
}

function permissions(mode: number): string {
  const type = (mode & 0o170000) === 0o040000 ? 'd' : (mode & 0o170000) === 0o120000 ? 'l' : '-';
  const bits = 'rwxrwxrwx'
    .split('')
    .map((ch, i) => (mode & (1 << (8 - i)) ? ch : '-'))
    .join('');
  return type + bits;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SIX_MONTHS_MS = 182 * 24 * 3600 * 1000;

/** `ls -l` dates: time of day for the last six months, the year for older files. */
function lsDate(mtimeMs: number, now: number): string {
  const d = new Date(mtimeMs);
  const day = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')}`;
  if (Math.abs(now - mtimeMs) < SIX_MONTHS_MS) return `${day} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${day}  ${d.getUTCFullYear()}`;
}

/** The same layout as OpenSSH's sftp-server (`ls_file`), with the merchant's name as owner. */
export function longname(name: string, st: Stats, owner: string, now = Date.now()): string {
  const user = owner.slice(0, 8).padEnd(8, ' ');
  return `${permissions(st.mode)} ${String(st.nlink).padStart(3, ' ')} ${user} ${user} ${String(st.size).padStart(8, ' ')} ${lsDate(st.mtimeMs, now)} ${name}`;
}
