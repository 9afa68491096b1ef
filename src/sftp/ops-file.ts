// SFTP requests on open files: OPEN, READ, WRITE, FSTAT, FSETSTAT, CLOSE.
//
// An upload is written to a hidden temp file in the home's uploads folder and renamed into
// place only when the client closes the handle after every write succeeded, so intake (and
// the watcher) never sees a partial file. Reads and writes are positional, so any number of
// requests may be in flight in any order; an O_APPEND descriptor would ignore the offset
// on Linux and corrupt a parallel upload, so appending is refused.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Attributes } from 'ssh2';
import { toAttrs } from './attrs.ts';
import { auditFields, OPEN_FLAG, run, STATUS, type SessionContext } from './context.ts';
import { MAX_DATA_BYTES } from './extensions.ts';
import type { OpenHandle, UploadHandle } from './handles.ts';
import { UPLOAD_TEMP_DIR, UPLOAD_TEMP_PREFIX } from './names.ts';
import { INBOUND } from './paths.ts';
import type { UploadClaim } from './quota.ts';
import { Refusal } from './refusal.ts';
import { refuseIfBusy, resolveExisting, resolveTarget } from './resolve.ts';
import { createWriteQueue } from './write-queue.ts';
import type { SplitWrite } from './write-splitter.ts';

const { O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
/**
 * OpenSSH asks for the read length the limits extension gives it; a larger request is
 * answered short, which the protocol allows (the reply must fit in the client's 256 KiB).
 */
const MAX_READ_BYTES = MAX_DATA_BYTES;
/** Most bytes one disk write of an upload takes from its queue (write-queue.ts). */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** Adds the handle, or closes the file if the session ended while it was being opened. */
function addHandle(ctx: SessionContext, reqId: number, handle: OpenHandle & { file: FileHandle }): void {
  try {
    ctx.sftp.handle(reqId, ctx.handles.add(handle));
  } catch (err) {
    void handle.file.close().catch(() => {});
    if (handle.kind === 'upload') void unlink(handle.temp).catch(() => {});
    throw err;
  }
}

/**
 * Where an upload to `real` is written: the home's uploads folder (outside inbound/, so the
 * watcher sees no event per write), or beside the target when that folder is missing, not
 * a plain folder, or on another file system (the final rename must stay atomic).
 */
async function tempFolder(ctx: SessionContext, real: string): Promise<string> {
  const uploads = join(ctx.home, UPLOAD_TEMP_DIR);
  const [folder, target] = await Promise.all([lstat(uploads).catch(() => undefined), lstat(dirname(real))]);
  return folder?.isDirectory() && folder.dev === target.dev ? uploads : dirname(real);
}

/** Creates the temp file of an upload once the merchant's quota has room for it. */
async function createTemp(ctx: SessionContext, real: string, exists: boolean, flags: number): Promise<{ file: FileHandle; claim: UploadClaim }> {
  const temp = join(await tempFolder(ctx, real), `${UPLOAD_TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  // Without TRUNC the client may rewrite parts of the existing file: start from a copy.
  const keep = exists && !(flags & OPEN_FLAG.TRUNC);
  const claim: UploadClaim = { temp, adds: !exists, bytes: keep ? (await lstat(real)).size : 0 };
  await ctx.quotas.beginUpload(ctx.who, join(ctx.home, INBOUND), claim);
  try {
    if (keep) await copyFile(real, temp, constants.COPYFILE_EXCL);
    const file = await open(temp, keep ? O_RDWR | O_NOFOLLOW : O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0o640);
    return { file, claim };
  } catch (err) {
    ctx.quotas.endUpload(ctx.who.merchantId, claim, false);
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** One disk write of an upload's queue: the pieces of one or more WRITE requests. */
async function writeAt(file: FileHandle, offset: number, chunks: Buffer[]): Promise<number> {
  const [first] = chunks;
  const { bytesWritten } = chunks.length === 1 ? await file.write(first!, 0, first!.length, offset) : await file.writev(chunks, offset);
  return bytesWritten;
}

async function openUpload(ctx: SessionContext, reqId: number, path: string, flags: number): Promise<void> {
  const t = await resolveTarget(ctx, path, 'write');
  if (flags & OPEN_FLAG.APPEND) throw new Refusal('unsupported', 'appending is not supported: upload the whole file');
  if (t.exists) {
    if (flags & OPEN_FLAG.EXCL) throw new Refusal('failure', 'already exists');
    if (!(await lstat(t.real)).isFile()) throw new Refusal('failure', 'not a file');
    refuseIfBusy(ctx, t.real);
  } else if (!(flags & OPEN_FLAG.CREAT)) {
    throw new Refusal('no_such_file', 'no such file');
  }
  ctx.handles.reserve();
  const { file, claim } = await createTemp(ctx, t.real, t.exists, flags);
  try {
    const queue = createWriteQueue((offset, chunks) => writeAt(file, offset, chunks), MAX_BATCH_BYTES);
    addHandle(ctx, reqId, { kind: 'upload', path: t.v.path, file, temp: claim.temp, target: t.real, size: claim.bytes, claim, failed: undefined, queue });
  } catch (err) {
    ctx.quotas.endUpload(ctx.who.merchantId, claim, false);
    throw err;
  }
}

async function openRead(ctx: SessionContext, reqId: number, path: string): Promise<void> {
  const t = await resolveExisting(ctx, path, 'read');
  ctx.handles.reserve();
  const file = await open(t.real, O_RDONLY | O_NOFOLLOW);
  if (!(await file.stat()).isFile()) {
    await file.close();
    throw new Refusal('failure', 'not a file');
  }
  addHandle(ctx, reqId, { kind: 'read', path: t.v.path, file, bytes: 0 });
}

function onOpen(ctx: SessionContext) {
  return (reqId: number, path: string, flags: number) =>
    run(ctx, reqId, 'open', path, () => (flags & (OPEN_FLAG.WRITE | OPEN_FLAG.APPEND) ? openUpload(ctx, reqId, path, flags) : openRead(ctx, reqId, path)));
}

function onRead(ctx: SessionContext) {
  return (reqId: number, handle: Buffer, offset: number, length: number) =>
    run(ctx, reqId, 'read', null, async () => {
      const h = ctx.handles.get(handle, 'read', 'upload');
      const len = Math.min(length, MAX_READ_BYTES);
      const buf = Buffer.allocUnsafe(len);
      const { bytesRead } = await h.file.read(buf, 0, len, offset);
      if (bytesRead === 0) return ctx.sftp.status(reqId, STATUS.EOF);
      if (h.kind === 'read') h.bytes += bytesRead;
      ctx.sftp.data(reqId, buf.subarray(0, bytesRead));
    });
}

/** A write past the file size limit or the merchant's quota fails the whole upload. */
function refuseWrite(ctx: SessionContext, h: UploadHandle, end: number): boolean {
  const reason = end > ctx.limits.maxFileSizeBytes ? `the file exceeds ${ctx.limits.maxFileSizeBytes} bytes` : ctx.quotas.grow(ctx.who.merchantId, h.claim, end);
  if (reason === undefined) return false;
  if (!h.failed) {
    h.failed = reason;
    ctx.audit('upload_failed', { ...auditFields(ctx, h.path), bytes: end, reason });
  }
  return true;
}

/** WRITE, from ssh2's parser or, without a copy of its data, from the write splitter. */
export function onWrite(ctx: SessionContext) {
  return (w: SplitWrite) =>
    run(ctx, w.reqId, 'write', null, async () => {
      const h = ctx.handles.get(w.handle, 'upload', 'read');
      if (h.kind === 'read') throw new Refusal('denied', 'the file was opened for reading');
      const end = w.offset + w.length;
      if (h.failed || refuseWrite(ctx, h, end)) return ctx.sftp.status(w.reqId, STATUS.FAILURE, h.failed);
      ctx.writes.begin();
      try {
        await h.queue.write(w.offset, w.chunks, w.length);
        h.size = Math.max(h.size, end);
      } catch (err) {
        h.failed ??= `write failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
        throw err;
      } finally {
        ctx.writes.end();
      }
      ctx.sftp.status(w.reqId, STATUS.OK);
    });
}

function onFstat(ctx: SessionContext) {
  return (reqId: number, handle: Buffer) =>
    run(ctx, reqId, 'fstat', null, async () => {
      const h = ctx.handles.get(handle, 'read', 'upload');
      ctx.sftp.attrs(reqId, toAttrs(await h.file.stat()));
    });
}

/** `put -p` sets the times on the open upload; permissions and ownership stay the server's. */
function onFsetstat(ctx: SessionContext) {
  return (reqId: number, handle: Buffer, attrs: Attributes) =>
    run(ctx, reqId, 'fsetstat', null, async () => {
      const h = ctx.handles.get(handle, 'upload', 'read');
      if (h.kind === 'read') throw new Refusal('denied', 'the file was opened for reading');
      if (attrs.atime !== undefined && attrs.mtime !== undefined) await h.file.utimes(attrs.atime, attrs.mtime);
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

/** Renames a finished upload into place and hands it over; answers the CLOSE. */
async function publish(ctx: SessionContext, reqId: number, h: UploadHandle): Promise<void> {
  // Writes the client did not wait for are finished first.
  let published = false;
  try {
    await h.queue.idle();
    await h.file.close();
    published = await moveIntoPlace(ctx, reqId, h);
  } finally {
    ctx.quotas.endUpload(ctx.who.merchantId, h.claim, published);
  }
}

/** Answers the CLOSE; true once the file is in place. */
async function moveIntoPlace(ctx: SessionContext, reqId: number, h: UploadHandle): Promise<boolean> {
  const refuse = h.failed ?? (ctx.locks.isBusy(h.target) ? 'the file is being ingested' : undefined);
  if (refuse) {
    await unlink(h.temp).catch(() => {});
    if (!h.failed) ctx.audit('upload_failed', { ...auditFields(ctx, h.path), bytes: h.size, reason: refuse });
    ctx.sftp.status(reqId, h.failed ? STATUS.FAILURE : STATUS.PERMISSION_DENIED, refuse);
    return false;
  }
  try {
    await rename(h.temp, h.target);
  } catch (err) {
    await unlink(h.temp).catch(() => {});
    ctx.audit('upload_failed', { ...auditFields(ctx, h.path), bytes: h.size, reason: `publish failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
    throw err;
  }
  const size = (await lstat(h.target)).size;
  ctx.audit('upload', { ...auditFields(ctx, h.path), bytes: size });
  ctx.sftp.status(reqId, STATUS.OK);
  void ctx.handover.offer(h.target, 'sftp', ctx.who).catch((err: unknown) => ctx.log.error({ err, path: h.target }, 'hand-over failed'));
  return true;
}

function onClose(ctx: SessionContext) {
  return (reqId: number, handle: Buffer) =>
    run(ctx, reqId, 'close', null, async () => {
      const h = ctx.handles.take(handle);
      if (h.kind === 'dir') return ctx.sftp.status(reqId, STATUS.OK);
      if (h.kind === 'upload') return publish(ctx, reqId, h);
      await h.file.close();
      ctx.audit('download', { ...auditFields(ctx, h.path), bytes: h.bytes });
      ctx.sftp.status(reqId, STATUS.OK);
    });
}

/** The session ended: close what the client left open; unfinished uploads are discarded. */
export async function abandonHandles(ctx: SessionContext): Promise<void> {
  for (const h of ctx.handles.drain()) {
    if (h.kind === 'dir') continue;
    if (h.kind === 'upload') await h.queue.idle();
    await h.file.close().catch(() => {});
    if (h.kind === 'upload') {
      ctx.quotas.endUpload(ctx.who.merchantId, h.claim, false);
      await unlink(h.temp).catch(() => {});
      ctx.audit('upload_failed', { ...auditFields(ctx, h.path), bytes: h.size, reason: 'the session ended before the file was closed' });
    } else {
      ctx.audit('download', { ...auditFields(ctx, h.path), bytes: h.bytes, reason: 'the session ended before the file was closed' });
    }
  }
}

export function registerFileOps(ctx: SessionContext): void {
  const { sftp } = ctx;
  sftp.on('OPEN', onOpen(ctx));
  sftp.on('READ', onRead(ctx));
  const write = onWrite(ctx);
  sftp.on('WRITE', (reqId, handle, offset, data) => write({ reqId, handle, offset, chunks: [data], length: data.length }));
  sftp.on('FSTAT', onFstat(ctx));
  sftp.on('FSETSTAT', onFsetstat(ctx));
  sftp.on('CLOSE', onClose(ctx));
}

