// One SFTP session: the request handlers over a merchant's chroot, the write cap, and the
// clean-up when the session ends.
import type { SFTPWrapper } from 'ssh2';
import type { Logger } from '../log.ts';
import type { Audit } from './audit.ts';
import { gateWrites } from './backpressure.ts';
import { interceptInput } from './channel-input.ts';
import { serveExtended } from './extensions.ts';
import type { SessionContext, SessionLimits } from './context.ts';
import type { FileOwner, Handover } from './handover.ts';
import { HandleTable } from './handles.ts';
import type { FileLocks } from './locks.ts';
import { abandonHandles, onWrite, registerFileOps } from './ops-file.ts';
import { registerPathOps } from './ops-path.ts';
import type { Quotas } from './quota.ts';
import type { SplitWrite } from './write-splitter.ts';

export interface SessionOptions {
  sftp: SFTPWrapper;
  home: string;
  who: FileOwner;
  remoteAddress: string;
  limits: SessionLimits & { maxInFlightWrites: number };
  quotas: Quotas;
  audit: Audit;
  locks: FileLocks;
  handover: Handover;
  log: Logger;
  touch: () => void;
}

/** Serves the session; `onEnd` runs once, after the handles left open were cleaned up. */
export function serveSession(opts: SessionOptions, onEnd: () => void): void {
  const { sftp } = opts;
  // The splitter goes in front of ssh2's parser first, then the write gate in front of both
  // (the gate's answer to ssh2 is what stops the window).
  let write: (w: SplitWrite) => void = () => {};
  interceptInput(sftp, (w) => write(w));
  const ctx: SessionContext = {
    ...opts,
    handles: new HandleTable(opts.limits.maxOpenHandles),
    writes: gateWrites(sftp, opts.limits.maxInFlightWrites),
  };
  write = onWrite(ctx);
  serveExtended(sftp, opts.limits);
  registerPathOps(ctx);
  registerFileOps(ctx);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    abandonHandles(ctx)
      .catch((err: unknown) => opts.log.error({ err }, 'sftp session clean-up failed'))
      .finally(onEnd);
  };
  // OpenSSH's client waits at the end of a batch until the server ends the SFTP stream too.
  sftp.on('end', () => {
    sftp.end();
    end();
  });
  sftp.on('close', end);
  sftp.on('error', (err: unknown) => opts.log.debug({ err }, 'sftp session error'));
}
