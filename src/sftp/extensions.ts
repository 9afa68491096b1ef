// The SFTP extensions the server advertises: `limits@openssh.com` only.
//
// Without it the OpenSSH client writes 32 KiB per request; told the server's limits it
// writes 255 KiB, as it does against OpenSSH's own sftp-server: per 500 MB about 2,000
// write requests instead of 15,300, so eight times fewer status replies (each an encrypted
// SSH packet and a socket write), request handlers and disk writes. Measured alone, it took
// the server from 1.96 to about 1.7 s of CPU per 500 MB upload (docs/performance.md, "SFTP").
//
// ssh2's server can neither advertise extensions (its VERSION reply is a fixed 9-byte
// packet) nor send an EXTENDED_REPLY, so both are written here as raw SFTP packets on the
// channel, with the channel's window accounted as ssh2 itself does (SFTP.js, tryWritePayload).
import type { SFTPWrapper } from 'ssh2';
import { STATUS } from './context.ts';

/** SSH_FXP_* packet types used here. */
const FXP = { VERSION: 2, EXTENDED_REPLY: 201 } as const;

/**
 * OpenSSH's own limits: a message is at most 256 KiB (SFTP_MAX_MSG_LENGTH, also ssh2's
 * largest inbound SFTP packet), and data up to 1 KiB less, which leaves room for the header.
 */
export const MAX_PACKET_BYTES = 256 * 1024;
export const MAX_DATA_BYTES = MAX_PACKET_BYTES - 1024;

interface ChannelInternals {
  _version: number;
  _buffer: Buffer[];
  _chunkcb: (() => void) | undefined;
  _protocol: { channelData(id: number, data: Buffer): void };
  outgoing: { id: number; state: string; window: number; packetSize: number };
}

/** uint32 length, byte type, then `body`. */
function packet(type: number, body: Buffer): Buffer {
  const buf = Buffer.allocUnsafe(5 + body.length);
  buf.writeUInt32BE(1 + body.length, 0);
  buf[4] = type;
  body.copy(buf, 5);
  return buf;
}

function sshString(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const buf = Buffer.allocUnsafe(4 + bytes.length);
  buf.writeUInt32BE(bytes.length, 0);
  bytes.copy(buf, 4);
  return buf;
}

/** VERSION 3 with `limits@openssh.com` "1" (draft-ietf-secsh-filexfer-02 §4, OpenSSH PROTOCOL §4.8). */
export function versionPacket(): Buffer {
  const version = Buffer.alloc(4);
  version.writeUInt32BE(3, 0);
  return packet(FXP.VERSION, Buffer.concat([version, sshString('limits@openssh.com'), sshString('1')]));
}

const VERSION_PACKET = versionPacket();

export interface ServerLimits {
  maxOpenHandles: number;
}

/** EXTENDED_REPLY to limits@openssh.com: four uint64 (packet, read, write, open handles). */
export function limitsReply(reqId: number, limits: ServerLimits): Buffer {
  const body = Buffer.alloc(4 + 4 * 8);
  body.writeUInt32BE(reqId, 0);
  body.writeBigUInt64BE(BigInt(MAX_PACKET_BYTES), 4);
  body.writeBigUInt64BE(BigInt(MAX_DATA_BYTES), 12);
  body.writeBigUInt64BE(BigInt(MAX_DATA_BYTES), 20);
  body.writeBigUInt64BE(BigInt(limits.maxOpenHandles), 28);
  return packet(FXP.EXTENDED_REPLY, body);
}

const RETRY_MS = 10;

/**
 * Sends a whole SFTP packet after whatever ssh2 has queued. With output queued, ssh2's own
 * drain sends it in order; with too little window and nothing queued (a client that stopped
 * reading), it is tried again shortly rather than split, as the reply is a few dozen bytes.
 */
function sendRaw(sftp: SFTPWrapper, buf: Buffer): void {
  const channel = sftp as unknown as ChannelInternals;
  const out = channel.outgoing;
  if (out.state !== 'open') return;
  if (channel._buffer.length > 0 && channel._chunkcb) {
    channel._buffer.push(buf);
  } else if (out.window >= buf.length && out.packetSize >= buf.length) {
    out.window -= buf.length;
    channel._protocol.channelData(out.id, buf);
  } else {
    setTimeout(() => sendRaw(sftp, buf), RETRY_MS).unref();
  }
}

/**
 * Runs `parse` (ssh2 parsing channel data) so that ssh2's bare VERSION reply is replaced by
 * one that advertises the extensions. ssh2 answers INIT while parsing, through the channel's
 * `_protocol.channelData`; until the session is initialised that call is routed here and
 * the 9-byte reply swapped for ours (the window is charged for the difference, so ssh2's
 * flow-control accounting stays exact).
 */
export function withExtendedVersion(sftp: SFTPWrapper, parse: () => void): void {
  const channel = sftp as unknown as ChannelInternals;
  if (channel._version !== -1) return parse();
  const protocol = channel._protocol;
  channel._protocol = {
    channelData(id, payload) {
      // ssh2 has charged the window for its 9 bytes; a client granting less than ours gets those.
      const extra = VERSION_PACKET.length - payload.length;
      if (payload.length !== 9 || payload[4] !== FXP.VERSION || channel.outgoing.window < extra) return protocol.channelData(id, payload);
      channel.outgoing.window -= extra;
      protocol.channelData(id, VERSION_PACKET);
    },
  };
  try {
    parse();
  } finally {
    channel._protocol = protocol;
  }
}

/** Whether ssh2 has answered the client's INIT. */
export function initialised(sftp: SFTPWrapper): boolean {
  return (sftp as unknown as ChannelInternals)._version !== -1;
}

/** Answers EXTENDED requests: limits@openssh.com, and OP_UNSUPPORTED for the others. */
export function serveExtended(sftp: SFTPWrapper, limits: ServerLimits): void {
  sftp.on('EXTENDED', (reqId: number, name: string) => {
    if (name === 'limits@openssh.com') sendRaw(sftp, limitsReply(reqId, limits));
    else sftp.status(reqId, STATUS.OP_UNSUPPORTED, `${name.slice(0, 64)} is not supported`);
  });
}
