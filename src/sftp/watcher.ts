// Watches every merchant's inbound folder for files placed there by other means (an operator
// copying a file in, a sync job) and for files already there at start (a crash between an
// upload and its intake). chokidar's awaitWriteFinish waits until a file's size has been
// stable for `stabilityMs`, so a file still being copied is not handed over half-written.
// Dot-files (our own upload temp files among them) are not watched at all.
import { watch, type FSWatcher } from 'chokidar';
import { relative, sep } from 'node:path';
import type { Logger } from '../log.ts';
import type { Handover } from './handover.ts';
import { INBOUND } from './paths.ts';

export interface WatcherOptions {
  root: string;
  stabilityMs: number;
  handover: Handover;
  log: Logger;
}

/** Only `<root>/<user>/inbound/**`, without dot-files or dot-folders. */
export function ignoredByWatcher(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === '') return false;
  const segments = rel.split(sep);
  if (segments[0] === '..' || segments.some((s) => s.startsWith('.'))) return true;
  return segments.length >= 2 && segments[1] !== INBOUND;
}

export async function watchInbound(opts: WatcherOptions): Promise<FSWatcher> {
  const offer = (path: string) => void opts.handover.offer(path, 'watcher').catch((err: unknown) => opts.log.error({ err, path }, 'inbound file not handed over'));
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
  return watcher;
}
