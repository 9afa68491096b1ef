// What stands between an SFTP channel's data and ssh2's parser: the write splitter takes
// WRITE requests out whole (write-splitter.ts), and until the session is initialised ssh2's
// VERSION reply is extended (extensions.ts). Installed before the write gate
// (backpressure.ts), which wraps the result.
import type { SFTPWrapper } from 'ssh2';
import { initialised, MAX_PACKET_BYTES, withExtendedVersion } from './extensions.ts';
import { createWriteSplitter, type SplitWrite } from './write-splitter.ts';

interface Pushable {
  push(data: Buffer | null): unknown;
}

export function interceptInput(sftp: SFTPWrapper, onWrite: (write: SplitWrite) => void): void {
  const channel = sftp as unknown as Pushable;
  const parse = channel.push.bind(channel);
  const split = createWriteSplitter({
    maxPacketBytes: MAX_PACKET_BYTES,
    ready: () => initialised(sftp),
    onWrite,
    forward: (data) => withExtendedVersion(sftp, () => void parse(data)),
  });
  channel.push = (data) => (data === null ? parse(null) : split(data));
}
