// A small tmpfs as the SFTP root of the disk-full scenario (root may mount one), and a filler
// that takes every free byte of it and gives them back. Unmounted at the end, pass or fail.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  dir: string;
  unmount(): void;
}

export function mountTmpfs(sizeMiB: number): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-faults-disk-'));
  const res = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', dir], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`mount -t tmpfs failed (root is needed): ${res.stderr}`);
  let mounted = true;
  return {
    dir,
    unmount() {
      if (!mounted) return;
      mounted = false;
      spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a filler file until the filesystem refuses (ENOSPC); the returned function removes it. */
export function fillDisk(dir: string): () => void {
  const path = join(dir, '.filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    // The last few bytes: a smaller write may still fit.
    for (let size = 32 * 1024; size >= 1; size >>= 1) {
      try {
        while (writeSync(fd, chunk.subarray(0, size)) > 0);
      } catch {
        // next, smaller size
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}
