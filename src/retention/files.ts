// The file classes of the purge: ingested batch files (archive/<mid>/<day>/), the quarantine
// (quarantine/<mid>/<day>/), and the acknowledgement and results files of each merchant's
// outbound/. A file's age runs from the later of its modification and status-change times:
// an SFTP client may set an old modification time on upload (`put -p`) and the archive keeps
// it through the rename, but the rename itself sets the status-change time, which nobody sets.
import type { Dirent, Stats } from 'node:fs';
import { opendir, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface FileSweep {
  /** Folder walked; a missing one holds nothing. */
  dir: string;
  /** Levels of folders below `dir` holding the files (archive: <mid>/<day>/ = 2). */
  depth: number;
  /** Which file names belong to the class. */
  matches: (name: string) => boolean;
}

export interface FileResult {
  files: number;
  bytes: number;
}

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

async function entries(dir: string): Promise<Dirent[]> {
  const list = [];
  try {
    for await (const e of await opendir(dir)) list.push(e);
  } catch (err) {
    if (!missing(err)) throw err;
  }
  return list;
}

/** The folders of the SFTP root that may be merchants' homes (the host keys' folder is a dot-folder). */
export async function listHomes(root: string): Promise<string[]> {
  return (await entries(root)).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
}

/** Removes (or, dry, counts) the class's files older than `cut`; folders left empty below `dir` go too. */
export async function sweepFiles(sweep: FileSweep, cut: Date, dryRun: boolean): Promise<FileResult> {
  const result: FileResult = { files: 0, bytes: 0 };
  await walk(sweep.dir, sweep.depth, sweep, cut.getTime(), dryRun, result);
  return result;
}

const past = (st: Stats, cutMs: number) => Math.max(st.mtimeMs, st.ctimeMs) < cutMs;

async function olderThan(path: string, cutMs: number): Promise<boolean> {
  const st = await stat(path).catch(() => undefined);
  return st !== undefined && past(st, cutMs);
}

async function walk(dir: string, depth: number, sweep: FileSweep, cutMs: number, dryRun: boolean, result: FileResult): Promise<void> {
  for (const e of await entries(dir)) {
    const path = join(dir, e.name);
    if (depth > 0) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      await walk(path, depth - 1, sweep, cutMs, dryRun, result);
      // A folder emptied here (a day of the archive) goes too, if it is itself past the cut:
      // one intake has just made, to move a file into, is not. rmdir refuses a folder that
      // is not empty, so a file arriving meanwhile keeps it.
      if (!dryRun && (await olderThan(path, cutMs))) await rmdir(path).catch(() => undefined);
      continue;
    }
    if (!e.isFile() || !sweep.matches(e.name)) continue;
    const st = await stat(path).catch((err: unknown) => (missing(err) ? undefined : Promise.reject(err)));
    if (!st || !past(st, cutMs)) continue;
    if (!dryRun) {
      try {
        await unlink(path);
      } catch (err) {
        if (missing(err)) continue; // removed by the merchant or another replica meanwhile
        throw err;
      }
    }
    result.files++;
    result.bytes += st.size;
  }
}
