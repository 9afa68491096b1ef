// Takes WRITE requests out of an SFTP channel's byte stream before ssh2 parses it.
//
// An OpenSSH client's WRITE is 255 KiB (see extensions.ts) and arrives in SSH channel
// packets of at most 32 KiB; ssh2 gathers each SFTP packet into a new buffer before parsing
// it: a copy of every uploaded byte, in memory that V8 counts as external, and external
// memory allocated since the last full collection counts against the old generation's
// limit, so it brings the next one forward. Here a WRITE's data is kept as the channel
// packets it came in (views, no copy) and written to disk with one writev. Measured per
// 500 MB upload: full collections 28 -> 20, server CPU 1.07-1.24 -> 0.85-1.07 s, main
// thread 0.49-0.56 -> 0.32-0.38 s (docs/performance.md, "SFTP").
//
// Every other packet, and any WRITE that does not parse exactly as ssh2 would accept it,
// is passed on to ssh2 byte for byte, so its parser (and its errors) see the same stream.
// Nothing is taken out before the session is initialised (ssh2 requires INIT first).

/** SSH_FXP_WRITE: uint32 id, string handle, uint64 offset, string data. */
const FXP_WRITE = 6;
/** ssh2 drops the connection on a longer handle. */
const MAX_HANDLE_BYTES = 256;
/** length(4) type(1) id(4) handle length(4). */
const FIXED_HEAD = 13;
/** handle, then offset(8) and data length(4). */
const MAX_HEAD = FIXED_HEAD + MAX_HANDLE_BYTES + 12;

export interface SplitWrite {
  reqId: number;
  handle: Buffer;
  offset: number;
  /** The data, in the pieces it arrived in (views of the channel's packets). */
  chunks: Buffer[];
  length: number;
}

export interface SplitterOptions {
  /** Longest SFTP packet ssh2 accepts; a longer one is left to ssh2 to refuse. */
  maxPacketBytes: number;
  /** Whether the session is initialised (ssh2 has answered INIT). */
  ready(): boolean;
  onWrite(write: SplitWrite): void;
  /** Passes bytes on to ssh2's parser. */
  forward(data: Buffer): void;
}

type Mode = 'head' | 'write-head' | 'data' | 'pass';

/** Returns the function that takes the channel's data in place of ssh2's parser. */
export function createWriteSplitter(opts: SplitterOptions): (data: Buffer) => void {
  const head = Buffer.allocUnsafe(MAX_HEAD);
  let mode: Mode = 'head';
  /** Bytes gathered in `head`; the header is complete at `need`. */
  let have = 0;
  let need = 5;
  /** Bytes of the current packet still to come (in 'data' and 'pass'). */
  let remaining = 0;
  let packetLength = 0;
  let write: SplitWrite | undefined;

  const reset = () => {
    mode = 'head';
    have = 0;
    need = 5;
  };
  /** Hands the gathered header and the rest of the packet to ssh2. */
  const passOn = () => {
    opts.forward(Buffer.from(head.subarray(0, have)));
    remaining = packetLength + 4 - have;
    mode = 'pass';
    if (remaining <= 0) reset();
  };

  /** The packet type is known: a WRITE is taken out, anything else passed on. */
  const onType = () => {
    packetLength = head.readUInt32BE(0);
    // A zero length has no type byte: ssh2 refuses it, and nothing after it is parsed.
    if (packetLength === 0) {
      opts.forward(Buffer.from(head.subarray(0, have)));
      remaining = Infinity;
      mode = 'pass';
      return;
    }
    const mayTake = head[4] === FXP_WRITE && packetLength <= opts.maxPacketBytes && packetLength >= FIXED_HEAD - 4 + 12 && opts.ready();
    if (!mayTake) return passOn();
    mode = 'write-head';
    need = FIXED_HEAD;
  };

  /** The WRITE's header is complete: its data follows, or it is passed on as it is. */
  const onWriteHead = () => {
    if (need === FIXED_HEAD) {
      const handleLength = head.readUInt32BE(9);
      if (handleLength > MAX_HANDLE_BYTES || FIXED_HEAD + handleLength + 12 > packetLength + 4) return passOn();
      need = FIXED_HEAD + handleLength + 12;
      return;
    }
    const handleEnd = need - 12;
    const high = head.readUInt32BE(handleEnd);
    const dataLength = head.readUInt32BE(need - 4);
    // The data must end the packet exactly, and the offset must be a safe integer.
    if (need + dataLength !== packetLength + 4 || high >= 0x200000) return passOn();
    write = {
      reqId: head.readUInt32BE(5),
      handle: Buffer.from(head.subarray(FIXED_HEAD, handleEnd)),
      offset: high * 0x1_0000_0000 + head.readUInt32BE(handleEnd + 4),
      chunks: [],
      length: dataLength,
    };
    remaining = dataLength;
    mode = 'data';
    if (remaining === 0) finishWrite();
  };

  const finishWrite = () => {
    const done = write!;
    write = undefined;
    reset();
    opts.onWrite(done);
  };

  return (data) => {
    let p = 0;
    while (p < data.length) {
      if (mode === 'head' || mode === 'write-head') {
        const n = Math.min(need - have, data.length - p);
        data.copy(head, have, p, p + n);
        have += n;
        p += n;
        if (have < need) return;
        if (mode === 'head') onType();
        else onWriteHead();
        continue;
      }
      const n = Math.min(remaining, data.length - p);
      const piece = p === 0 && n === data.length ? data : data.subarray(p, p + n);
      p += n;
      remaining -= n;
      if (mode === 'pass') {
        opts.forward(piece);
        if (remaining === 0) reset();
      } else {
        write!.chunks.push(piece);
        if (remaining === 0) finishWrite();
      }
    }
  };
}
