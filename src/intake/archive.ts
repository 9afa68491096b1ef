// After intake the input leaves inbound/: archived per merchant outside every chroot, or
// deleted when it carried full card numbers (they now live only in the vault) or was rejected.
import { mkdir, rename, rm, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IntakeFile } from './types.ts';

export async function archiveInput(archiveDir: string, file: IntakeFile, opts: { batchId: string | null; deleteInstead: boolean }): Promise<string | null> {
  if (opts.deleteInstead) {
    await rm(file.path, { force: true });
    return null;
  }
  const day = new Date().toISOString().slice(0, 10);
  const dir = join(archiveDir, file.mid, day);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, `${opts.batchId ?? 'rejected'}-${file.name}`);
  try {
    await rename(file.path, target);
  } catch (err) {
    // Another file system (the SFTP root on shared storage): copy, then remove.
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(file.path, target);
    await rm(file.path, { force: true });
  }
  return target;
}
