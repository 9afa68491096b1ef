// Watches every merchant's inbound folder for files placed there by other means (an operator
// copying a file in, a sync job) and for files already there at start (a crash between an
// upload and its intake). chokidar's awaitWriteFinish waits until a file's size has been
// stable for `stabilityMs`, so a file still being copied is not handed over half-written.
// Dot-files (our own upload temp files among them) are not watched at all.
//
// chokidar lists a new folder before it starts watching it, so a file created in between is
// never reported (paulmillr/chokidar#1471, open in 5.0). A new merchant's inbound/ is created
// just before files arrive in it, which is exactly that gap. So every folder chokidar reports
// as new is listed again once it has settled, and the whole tree every `rescanMs` as a net;
// the hand-over recognises files it has seen, so listing twice hands nothing over twice.
import { watch } from 'chokidar';
import { readdir, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative, sep } from 'node:path';
import type { Logger } from '../log.ts';
import type { Handover } from './handover.ts';
import { INBOUND } from './paths.ts';

export interface WatcherOptions {
  root: string;
  stabilityMs: number;
  handover: Handover;
  log: Logger;
  /** How often the whole tree is listed again (sftp.watchRescanMs). */
  rescanMs: number;
}

export interface InboundWatcher {
  close(): Promise<void>;
}

/** Only `<root>/<user>/inbound/**`, without dot-files or dot-folders. */
export function ignoredByWatcher(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === '') return false;
  const segments = rel.split(sep);
  if (segments[0] === '..' || segments.some((s) => s.startsWith('.'))) return true;
  return segments.length >= 2 && segments[1] !== INBOUND;
}

/**
 * Every file under `dir` that the watcher would report, passed to `offer` once its size and
 * modification time have not changed for `stabilityMs`. A file still changing is left to the
 * watcher's own events or the next listing.
 */
export async function listInbound(root: string, dir: string, stabilityMs: number, offer: (path: string) => void): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const candidates = files.filter((path) => !ignoredByWatcher(root, path) && relative(root, path).split(sep).length >= 3);
  const before = await Promise.all(candidates.map((path) => stat(path).catch(() => undefined)));
  if (stabilityMs > 0) await sleep(stabilityMs);
  await Promise.all(
    candidates.map(async (path, i) => {
      const after = await stat(path).catch(() => undefined);
      const was = before[i];
      if (was && after && was.size === after.size && was.mtimeMs === after.mtimeMs) offer(path);
    }),
  );
}

export async function watchInbound(opts: WatcherOptions): Promise<InboundWatcher> {
  let closed = false;
  const offer = (path: string) => {
    if (closed) return;
    opts.handover.offer(path, 'watcher').catch((err: unknown) => opts.log.error({ err, path }, 'inbound file not handed over'));
  };
  const list = (dir: string) => void listInbound(opts.root, dir, opts.stabilityMs, offer).catch((err: unknown) => opts.log.error({ err, dir }, 'inbound folder not listed'));
  const watcher = watch(opts.root, {
    ignoreInitial: false,
    followSymlinks: false,
    depth: 12,
    ignored: (path: string) => ignoredByWatcher(opts.root, path),
    awaitWriteFinish: opts.stabilityMs > 0 ? { stabilityThreshold: opts.stabilityMs, pollInterval: Math.min(100, opts.stabilityMs) } : false,
  });
  watcher.on('add', offer).on('change', offer);
  watcher.on('error', (err: unknown) => opts.log.error({ err }, 'inbound watcher error'));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  // Registered after `ready`: the folders present at start were listed by chokidar itself.
  // A new folder is listed at once and again a little later: a file written between
  // chokidar's own listing of the folder and the start of its watch (paulmillr/chokidar#1471)
  // is reported by neither, and the first listing may run before that file exists. The
  // hand-over recognises a file it already took, so a second offer is harmless.
  const relistMs = Math.max(250, opts.stabilityMs) * 2;
  watcher.on('addDir', (dir: string) => {
    list(dir);
    setTimeout(() => closed || list(dir), relistMs).unref();
  });
  const timer = setInterval(() => list(opts.root), opts.rescanMs);
  timer.unref();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await watcher.close();
    },
  };
}
