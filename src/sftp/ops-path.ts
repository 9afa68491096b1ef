// SFTP requests on paths: REALPATH, STAT/LSTAT, OPENDIR/READDIR, MKDIR, RMDIR, REMOVE,
// RENAME, SETSTAT, and the refused READLINK/SYMLINK.
import { link, lstat, mkdir, readdir, rename, rmdir, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Attributes } from 'ssh2';
import { longname, toAttrs } from './attrs.ts';
import { auditFields, run, STATUS, type SessionContext } from './context.ts';
import type { DirEntry } from './handles.ts';
import { UPLOAD_TEMP_PREFIX } from './names.ts';
import { INBOUND, normaliseVirtual, OUTBOUND } from './paths.ts';
import { Refusal } from './refusal.ts';
import { refuseIfBusy, resolveExisting, resolveTarget } from './resolve.ts';

const READDIR_BATCH = 100;

async function statNoFollow(real: string) {
  const st = await lstat(real);
  if (st.isSymbolicLink()) throw new Refusal('denied', 'symbolic links are not followed');
  return st;
}

/** A folder's entries as the merchant may see them: files and folders, no links, no upload temps. */
async function listFolder(ctx: SessionContext, real: string, isRoot: boolean): Promise<DirEntry[]> {
  const names = isRoot ? [INBOUND, OUTBOUND] : (await readdir(real)).filter((n) => !n.startsWith(UPLOAD_TEMP_PREFIX));
  const entries: DirEntry[] = [];
  for (const name of names) {
    const stats = await lstat(join(real, name)).catch(() => undefined);
    if (stats && (stats.isFile() || stats.isDirectory())) entries.push({ name, stats });
  }
  return entries;
}

function onStat(ctx: SessionContext, op: string) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, op, path, async () => {
      const { real } = await resolveExisting(ctx, path, 'read');
      ctx.sftp.attrs(reqId, toAttrs(await statNoFollow(real)));
    });
}

function onOpendir(ctx: SessionContext) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, 'opendir', path, async () => {
      const { v, real } = await resolveExisting(ctx, path, 'read');
      if (!(await statNoFollow(real)).isDirectory()) throw new Refusal('failure', 'not a folder');
      ctx.handles.reserve();
      const entries = await listFolder(ctx, real, v.area === 'root');
      ctx.sftp.handle(reqId, ctx.handles.add({ kind: 'dir', path: v.path, entries, next: 0 }));
    });
}

function onReaddir(ctx: SessionContext) {
  return (reqId: number, handle: Buffer) =>
    run(ctx, reqId, 'readdir', null, () => {
      const dir = ctx.handles.get(handle, 'dir');
      if (dir.next >= dir.entries.length) return ctx.sftp.status(reqId, STATUS.EOF);
      const batch = dir.entries.slice(dir.next, dir.next + READDIR_BATCH);
      dir.next += batch.length;
      ctx.sftp.name(
        reqId,
        batch.map((e) => ({ filename: e.name, longname: longname(e.name, e.stats, ctx.who.username), attrs: toAttrs(e.stats) })),
      );
    });
}

function onMkdir(ctx: SessionContext) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, 'mkdir', path, async () => {
      const { v, real, exists } = await resolveTarget(ctx, path, 'write');
      if (exists) throw new Refusal('failure', 'already exists');
      await ctx.quotas.checkFolder(join(ctx.home, INBOUND), v.below.length);
      await mkdir(real, { mode: 0o750 });
      ctx.audit('mkdir', auditFields(ctx, v.path));
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

function onRmdir(ctx: SessionContext) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, 'rmdir', path, async () => {
      const { v, real } = await resolveExisting(ctx, path, 'write');
      if (!(await statNoFollow(real)).isDirectory()) throw new Refusal('failure', 'not a folder');
      await rmdir(real);
      ctx.audit('rmdir', auditFields(ctx, v.path));
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

function onRemove(ctx: SessionContext) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, 'remove', path, async () => {
      const { v, real } = await resolveExisting(ctx, path, 'remove');
      if (!(await statNoFollow(real)).isFile()) throw new Refusal('failure', 'not a file');
      refuseIfBusy(ctx, real);
      await unlink(real);
      ctx.audit('remove', auditFields(ctx, v.path));
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

/**
 * The base protocol's rename fails when the target exists. Files are moved with link +
 * unlink, which refuses an existing target atomically (rename(2) would replace it).
 */
function onRename(ctx: SessionContext) {
  return (reqId: number, oldPath: string, newPath: string) =>
    run(ctx, reqId, 'rename', `${oldPath} -> ${newPath}`, async () => {
      const from = await resolveExisting(ctx, oldPath, 'write');
      const to = await resolveTarget(ctx, newPath, 'write');
      if (to.exists) throw new Refusal('failure', 'the target already exists');
      refuseIfBusy(ctx, from.real);
      if (ctx.locks.isBusyBelow(from.real)) throw new Refusal('denied', 'a file in this folder is being ingested');
      const st = await statNoFollow(from.real);
      if (st.isDirectory()) await ctx.quotas.checkMove(from.real, to.v.below.length);
      if (st.isFile()) {
        await link(from.real, to.real);
        await unlink(from.real);
      } else {
        await rename(from.real, to.real);
      }
      ctx.audit('rename', { ...auditFields(ctx, to.v.path), from: from.v.path });
      ctx.sftp.status(reqId, STATUS.OK);
      if (st.isFile()) void ctx.handover.offer(to.real, 'sftp', ctx.who).catch((err: unknown) => ctx.log.error({ err, path: to.real }, 'hand-over failed'));
    });
}

/** Only the times are applied (`put -p`); ownership and permissions stay the server's. */
function onSetstat(ctx: SessionContext) {
  return (reqId: number, path: string, attrs: Attributes) =>
    run(ctx, reqId, 'setstat', path, async () => {
      const { real } = await resolveExisting(ctx, path, 'write');
      await statNoFollow(real);
      if (attrs.atime !== undefined && attrs.mtime !== undefined) await utimes(real, attrs.atime, attrs.mtime);
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

function onRealpath(ctx: SessionContext) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, 'realpath', path, () => {
      // Lexical only: `put -r` asks for paths that do not exist yet.
      const { path: normal } = normaliseVirtual(path);
      ctx.sftp.name(reqId, [{ filename: normal, longname: normal, attrs: {} as Attributes }]);
    });
}

function refuseLinks(ctx: SessionContext, op: string) {
  return (reqId: number, path: string) =>
    run(ctx, reqId, op, path, () => {
      throw new Refusal('denied', 'symbolic links are not supported');
    });
}

export function registerPathOps(ctx: SessionContext): void {
  const { sftp } = ctx;
  sftp.on('REALPATH', onRealpath(ctx));
  sftp.on('STAT', onStat(ctx, 'stat'));
  sftp.on('LSTAT', onStat(ctx, 'lstat'));
  sftp.on('OPENDIR', onOpendir(ctx));
  sftp.on('READDIR', onReaddir(ctx));
  sftp.on('MKDIR', onMkdir(ctx));
  sftp.on('RMDIR', onRmdir(ctx));
  sftp.on('REMOVE', onRemove(ctx));
  sftp.on('RENAME', onRename(ctx));
  sftp.on('SETSTAT', onSetstat(ctx));
  sftp.on('READLINK', refuseLinks(ctx, 'readlink'));
  sftp.on('SYMLINK', refuseLinks(ctx, 'symlink'));
}
