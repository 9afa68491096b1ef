// Caps the writes of one SFTP session that are waiting on the disk.
//
// ssh2 reopens a channel's flow-control window as soon as it has parsed incoming data, not
// when our write to disk completes, so a client keeping many writes in flight grows the
// server's memory (measured: 125 MiB at 64 in flight, 168 MiB at 1024 with a slow disk;
// shared/reference/sftp-with-ssh2.md). ssh2 does stop reopening the window when a channel's
// push() returns false, and reopens it when the channel is read again; an SFTP channel is
// never read, so once the writes in flight fall below the cap we reopen it ourselves with
// ssh2's own windowAdjust. Memory per session is then bounded by the cap plus one window.
import { createRequire } from 'node:module';
import type { SFTPWrapper } from 'ssh2';

interface ChannelInternals {
  push(data: Buffer | null): unknown;
  _waitChanDrain?: boolean;
  incoming: { window: number };
}

const channelModule = createRequire(import.meta.url)('ssh2/lib/Channel.js') as {
  windowAdjust: (channel: unknown) => void;
  WINDOW_THRESHOLD: number;
};

export interface WriteGate {
  begin(): void;
  end(): void;
  readonly inFlight: number;
}

export function gateWrites(sftp: SFTPWrapper, max: number): WriteGate {
  const channel = sftp as unknown as ChannelInternals;
  const push = channel.push.bind(channel);
  let inFlight = 0;
  channel.push = (data) => {
    const result = push(data);
    return data !== null && inFlight >= max ? false : result;
  };
  return {
    get inFlight() {
      return inFlight;
    },
    begin() {
      inFlight++;
    },
    end() {
      inFlight--;
      if (inFlight >= max || !channel._waitChanDrain) return;
      channel._waitChanDrain = false;
      if (channel.incoming.window <= channelModule.WINDOW_THRESHOLD) channelModule.windowAdjust(channel);
    },
  };
}
