// Hands complete batch files to intake through one typed callback, exactly once per file.
// Two paths see the same file: the SFTP server when a client closes an upload or renames a
// temp name into place, and the inbound watcher (files placed by other means, and files left
// over from before a restart). A file is identified by device, inode, size and mtime, not by
// its path: the watcher re-reporting a published upload, or a merchant renaming a file that
// was already handed over, is recognised; a new upload under an old name is a new inode.
// After a restart nothing is remembered, so files still in inbound/ are handed over again.
// A file whose name is not a batch file's is handed over too, marked `unsupported`: intake
// answers it with a rejection ack instead of leaving it in inbound/ with no answer.
import { lstat } from 'node:fs/promises';
import { basename, relative, sep } from 'node:path';
import type { Logger } from '../log.ts';
import type { Audit } from './audit.ts';
import type { FileLocks } from './locks.ts';
import { classifyName } from './names.ts';
import { INBOUND } from './paths.ts';

/** A complete batch file in a merchant's inbound folder, ready for intake. */
export interface ReadyFile {
  merchantId: string;
  mid: string;
  username: string;
  /** Absolute path of the file. */
  path: string;
  /** File name (no folder). */
  name: string;
  size: number;
  /**
   * The name is not a batch file's (*.json, *.json.gz): intake answers it with a rejection
   * ack naming the accepted extensions and removes it, rather than leave it in inbound/
   * unanswered.
   */
  unsupported?: boolean;
}

/**
 * Intake's entry point. The file stays busy (not overwritable, renamable or removable over
 * SFTP) until the returned promise settles; intake may hold it longer with `locks.acquire`.
 * Intake is expected to move the file out of inbound/ when done (DESIGN.md "Input files
 * afterwards"); a file still there at the next start is handed over again.
 */
export type OnFileReady = (file: ReadyFile) => Promise<void> | void;

export interface FileOwner {
  merchantId: string;
  mid: string;
  username: string;
}

export interface HandoverDeps {
  root: string;
  locks: FileLocks;
  onFileReady: OnFileReady;
  audit: Audit;
  log: Logger;
  findOwner: (username: string) => Promise<FileOwner | undefined>;
}

export interface Handover {
  /** Hands the file over if it is a batch file not handed over before. */
  offer(path: string, source: 'sftp' | 'watcher', owner?: FileOwner): Promise<void>;
  /** Resolves when every onFileReady call in progress has settled. */
  drain(): Promise<void>;
}

/** `<root>/<username>/inbound/…/<file>` → username; undefined for any other place. */
function inboundUser(root: string, path: string): string | undefined {
  const segments = relative(root, path).split(sep);
  return segments.length >= 3 && segments[1] === INBOUND && !segments[0]!.startsWith('.') ? segments[0] : undefined;
}

/** Bounds the memory of files seen; far more than one instance's inbound files at once. */
const MAX_REMEMBERED = 100_000;

export function createHandover(deps: HandoverDeps): Handover {
  // Insertion-ordered, so the oldest entry is dropped first.
  const seen = new Set<string>();
  const remember = (key: string) => {
    seen.add(key);
    if (seen.size > MAX_REMEMBERED) seen.delete(seen.values().next().value!);
  };
  const running = new Set<Promise<void>>();

  function dispatch(file: ReadyFile): void {
    const release = deps.locks.acquire(file.path);
    const run = Promise.resolve()
      .then(() => deps.onFileReady(file))
      .catch((err: unknown) => deps.log.error({ err, path: file.path, mid: file.mid }, 'onFileReady failed'))
      .finally(() => {
        release();
        running.delete(run);
      });
    running.add(run);
  }

  async function offer(path: string, source: 'sftp' | 'watcher', owner?: FileOwner): Promise<void> {
    const name = basename(path);
    const kind = classifyName(name);
    const username = inboundUser(deps.root, path);
    if (kind === 'pending' || username === undefined) return;
    const st = await lstat(path).catch(() => undefined);
    if (!st?.isFile()) return;
    // The kind is part of the key: notes.txt renamed to notes.json is handed over then.
    const key = `${kind}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    // Check and record without an await in between: the two sources may race.
    if (seen.has(key) || deps.locks.isBusy(path)) {
      // The second sight of a file (the watcher after an upload, a rename, a rescan) is the
      // answer to "why was it not ingested again?"; tests count hand-overs at this line.
      deps.log.debug({ path, source, reason: seen.has(key) ? 'already handed over' : 'being ingested' }, 'file offered again: not handed over');
      return;
    }
    remember(key);
    let who: FileOwner | undefined;
    try {
      who = owner ?? (await deps.findOwner(username));
    } catch (err) {
      seen.delete(key);
      throw err;
    }
    if (!who) {
      deps.audit('file_ignored', { username, path, bytes: st.size, reason: 'no SFTP user owns this folder', source });
      return;
    }
    const { merchantId, mid } = who;
    if (kind === 'other') {
      deps.audit('handed_over', { username, mid, path, bytes: st.size, reason: 'not a batch file name (*.json, *.json.gz): to be rejected', source });
      return dispatch({ merchantId, mid, username, path, name, size: st.size, unsupported: true });
    }
    deps.audit('handed_over', { username, mid, path, bytes: st.size, source });
    dispatch({ merchantId, mid, username, path, name, size: st.size });
  }

  return {
    offer,
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
