// PGlite runs inside one process and must never be opened by two at once (the second would
// corrupt the data folder). A lock file holding the owner's pid guards it; a lock left by a
// dead process is taken over.
import { openSync, writeSync, closeSync, readFileSync, unlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  readonly pid: number;
  constructor(pid: number) {
    // Met by `serve` and `migrate`, which are never sent to a running daemon, and by any
    // command when the holder did not answer on its CLI socket (src/admin/) in time.
    super(`the embedded database is in use by process ${pid}; stop it first (serve and migrate need the folder to themselves; other commands run through a running daemon's CLI socket), or use a PostgreSQL server (DATABASE_URL) to share the data`);
    this.name = 'DataDirLockedError';
    this.pid = pid;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const lockPath = (dir: string) => join(dir, 'rescued.lock');

/** The pid of another live process holding the folder's lock; undefined when it is free or stale. */
export function dataDirHolder(dir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(lockPath(dir), 'utf8'));
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : undefined;
}

/** Takes the lock or throws DataDirLockedError; returns the release function. */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = lockPath(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirLockedError(pid);
      unlinkSync(path);
    }
  }
  throw new Error(`cannot take the lock ${path}`);
}
