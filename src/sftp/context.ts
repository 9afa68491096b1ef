// What every SFTP request handler of one session shares, and how a request is answered when
// it fails: a deliberate refusal with its status and an audit line, a file-system error with
// the status closest to its errno.
import type { SFTPWrapper } from 'ssh2';
import type { Logger } from '../log.ts';
import type { Audit } from './audit.ts';
import type { FileLocks } from './locks.ts';
import type { FileOwner, Handover } from './handover.ts';
import type { HandleTable } from './handles.ts';
import type { WriteGate } from './backpressure.ts';
import type { Quotas } from './quota.ts';
import { Refusal, type RefusalKind } from './refusal.ts';

/** SSH_FX_* status codes (draft-ietf-secsh-filexfer-02, the version OpenSSH speaks). */
export const STATUS = { OK: 0, EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4, BAD_MESSAGE: 5, OP_UNSUPPORTED: 8 } as const;

/** SSH_FXF_* open flags, mapped bit by bit (ssh2's string helper knows only exact combinations). */
export const OPEN_FLAG = { READ: 0x01, WRITE: 0x02, APPEND: 0x04, CREAT: 0x08, TRUNC: 0x10, EXCL: 0x20 } as const;

const REFUSAL_STATUS: Record<RefusalKind, number> = {
  denied: STATUS.PERMISSION_DENIED,
  no_such_file: STATUS.NO_SUCH_FILE,
  failure: STATUS.FAILURE,
  unsupported: STATUS.OP_UNSUPPORTED,
  bad_path: STATUS.BAD_MESSAGE,
};

export interface SessionLimits {
  maxFileSizeBytes: number;
  maxOpenHandles: number;
}

export interface SessionContext {
  sftp: SFTPWrapper;
  /** Real path of the merchant's home (symbolic links resolved). */
  home: string;
  who: FileOwner;
  remoteAddress: string;
  limits: SessionLimits;
  quotas: Quotas;
  audit: Audit;
  locks: FileLocks;
  handover: Handover;
  handles: HandleTable;
  writes: WriteGate;
  log: Logger;
  /** Records activity for the idle timeout. */
  touch(): void;
}

function errnoStatus(err: NodeJS.ErrnoException): [number, string] {
  switch (err.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return [STATUS.NO_SUCH_FILE, 'No such file or folder'];
    case 'EACCES':
    case 'EPERM':
      return [STATUS.PERMISSION_DENIED, 'Permission denied'];
    case 'ELOOP':
      return [STATUS.PERMISSION_DENIED, 'Symbolic links are not followed'];
    case 'EEXIST':
    case 'ENOTEMPTY':
      return [STATUS.FAILURE, err.code === 'EEXIST' ? 'Already exists' : 'Folder not empty'];
    case 'ENOSPC':
    case 'EDQUOT':
      return [STATUS.FAILURE, 'No space left on the server'];
    default:
      return [STATUS.FAILURE, 'Failure'];
  }
}

export function auditFields(ctx: SessionContext, path?: string | null) {
  return { username: ctx.who.username, mid: ctx.who.mid, remoteAddress: ctx.remoteAddress, path: path ?? null };
}

/** Answers a failed request. */
export function fail(ctx: SessionContext, reqId: number, op: string, path: string | null, err: unknown): void {
  if (err instanceof Refusal) {
    if (err.audited) ctx.audit('refused', { ...auditFields(ctx, path), reason: err.message, op });
    ctx.sftp.status(reqId, REFUSAL_STATUS[err.kind], err.message);
    return;
  }
  const e = err as NodeJS.ErrnoException;
  const [status, message] = errnoStatus(e);
  if (status === STATUS.FAILURE) ctx.log.warn({ err: e, op, path, username: ctx.who.username }, 'sftp request failed');
  if (e.code === 'ELOOP') ctx.audit('refused', { ...auditFields(ctx, path), reason: message, op });
  ctx.sftp.status(reqId, status, message);
}

/** Runs one request: activity for the idle timer, and every failure answered. */
export function run(ctx: SessionContext, reqId: number, op: string, path: string | null, body: () => Promise<void> | void): void {
  ctx.touch();
  try {
    const result = body();
    if (result) result.catch((err: unknown) => fail(ctx, reqId, op, path, err));
  } catch (err) {
    fail(ctx, reqId, op, path, err);
  }
}
