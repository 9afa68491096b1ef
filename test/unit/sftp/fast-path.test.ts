// The SFTP upload fast path in pieces: the write splitter in front of ssh2's parser, the
// per-upload write queue, the packets of the limits extension, and the cipher policy.
import { describe, expect, it } from 'vitest';
import { opensshWithAesGcm, SSH_ALGORITHMS } from '../../../src/sftp/algorithms.ts';
import { limitsReply, MAX_DATA_BYTES, MAX_PACKET_BYTES, versionPacket } from '../../../src/sftp/extensions.ts';
import { createWriteQueue } from '../../../src/sftp/write-queue.ts';
import { createWriteSplitter, type SplitWrite } from '../../../src/sftp/write-splitter.ts';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const str = (b: Buffer) => Buffer.concat([u32(b.length), b]);
const packet = (type: number, body: Buffer) => Buffer.concat([u32(1 + body.length), Buffer.from([type]), body]);
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const writePacket = (reqId: number, handle: Buffer, offset: number, data: Buffer) => packet(6, Buffer.concat([u32(reqId), str(handle), u64(offset), str(data)]));
const otherPacket = (type: number, reqId: number, text: string) => packet(type, Buffer.concat([u32(reqId), str(Buffer.from(text))]));

/** Deterministic pseudo-random cut points. */
function cut(stream: Buffer, seed: number): Buffer[] {
  const pieces: Buffer[] = [];
  let state = seed;
  for (let p = 0; p < stream.length; ) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const n = 1 + (state % 9000);
    pieces.push(stream.subarray(p, p + n));
    p += n;
  }
  return pieces;
}

function run(stream: Buffer, seed: number, ready = () => true) {
  const forwarded: Buffer[] = [];
  const writes: SplitWrite[] = [];
  const split = createWriteSplitter({ maxPacketBytes: MAX_PACKET_BYTES, ready, onWrite: (w) => writes.push(w), forward: (d) => forwarded.push(Buffer.from(d)) });
  for (const piece of cut(stream, seed)) split(piece);
  return { forwarded: Buffer.concat(forwarded), writes };
}

describe('write splitter', () => {
  const handle = u32(7);
  const data = [Buffer.alloc(40_000, 1), Buffer.alloc(261_120, 2), Buffer.alloc(0), Buffer.alloc(5, 3)];
  const others = [otherPacket(1, 3, ''), otherPacket(17, 10, '/inbound/a.json'), otherPacket(4, 11, 'xx')];
  const stream = Buffer.concat([others[0]!, writePacket(1, handle, 0, data[0]!), others[1]!, writePacket(2, handle, 40_000, data[1]!), writePacket(3, handle, 2 ** 40, data[2]!), others[2]!, writePacket(4, handle, 5, data[3]!)]);

  it.each([1, 2, 3, 4, 5])('takes WRITEs out whole and passes everything else on byte for byte (cuts %i)', (seed) => {
    const { forwarded, writes } = run(stream, seed);
    expect(forwarded.equals(Buffer.concat(others))).toBe(true);
    expect(writes.map((w) => ({ reqId: w.reqId, handle: w.handle, offset: w.offset, length: w.length, data: Buffer.concat(w.chunks) }))).toEqual([
      { reqId: 1, handle, offset: 0, length: 40_000, data: data[0] },
      { reqId: 2, handle, offset: 40_000, length: 261_120, data: data[1] },
      { reqId: 3, handle, offset: 2 ** 40, length: 0, data: data[2] },
      { reqId: 4, handle, offset: 5, length: 5, data: data[3] },
    ]);
  });

  it('keeps the data as views of what arrived, without copying it', () => {
    const arrived = writePacket(9, handle, 0, Buffer.alloc(1000, 4));
    const writes: SplitWrite[] = [];
    createWriteSplitter({ maxPacketBytes: MAX_PACKET_BYTES, ready: () => true, onWrite: (w) => writes.push(w), forward: () => {} })(arrived);
    expect(writes[0]!.chunks[0]!.buffer).toBe(arrived.buffer);
  });

  it('leaves to ssh2 what it must refuse or parse itself', () => {
    const before = run(writePacket(1, handle, 0, data[3]!), 1, () => false);
    expect(before.writes).toEqual([]);
    const badLength = Buffer.concat([u32(1 + 4 + 8 + 8 + 4 + 3), Buffer.from([6]), u32(1), str(handle), u64(0), u32(2), Buffer.from('abc')]);
    const longHandle = writePacket(1, Buffer.alloc(300), 0, data[3]!);
    const hugeOffset = writePacket(1, handle, 0, data[3]!);
    hugeOffset.writeUInt32BE(0x20_0000, 17);
    for (const bad of [badLength, longHandle, hugeOffset, packet(6, Buffer.alloc(10))]) {
      const { forwarded, writes } = run(Buffer.concat([bad, others[1]!]), 2);
      expect(writes).toEqual([]);
      expect(forwarded.equals(Buffer.concat([bad, others[1]!]))).toBe(true);
    }
    const oversize = Buffer.concat([u32(MAX_PACKET_BYTES + 1), Buffer.from([6])]);
    expect(run(oversize, 1).forwarded.equals(oversize)).toBe(true);
  });
});

describe('write queue', () => {
  it('writes one batch at a time, contiguous requests together, in arrival order', async () => {
    const calls: { offset: number; bytes: string }[] = [];
    let release!: () => void;
    const queue = createWriteQueue(async (offset, chunks) => {
      calls.push({ offset, bytes: Buffer.concat(chunks).toString() });
      if (calls.length === 1) await new Promise<void>((r) => (release = r));
      return chunks.reduce((n, c) => n + c.length, 0);
    }, 5);
    const b = (s: string) => [Buffer.from(s)];
    const done = [queue.write(0, b('ab'), 2)];
    await Promise.resolve();
    done.push(queue.write(2, b('cd'), 2), queue.write(4, b('ef'), 2), queue.write(6, b('gh'), 2), queue.write(0, b('XY'), 2));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([{ offset: 0, bytes: 'ab' }]);
    release();
    await Promise.all(done);
    await queue.idle();
    expect(calls).toEqual([
      { offset: 0, bytes: 'ab' },
      { offset: 2, bytes: 'cdef' },
      { offset: 6, bytes: 'gh' },
      { offset: 0, bytes: 'XY' },
    ]);
  });

  it('fails every request of a failed or short write, and carries on with the next', async () => {
    let n = 0;
    const queue = createWriteQueue(async (_offset, chunks) => {
      n++;
      if (n === 1) throw Object.assign(new Error('disk'), { code: 'EIO' });
      return n === 2 ? 1 : chunks.reduce((s, c) => s + c.length, 0);
    }, 1024);
    await expect(queue.write(0, [Buffer.from('a')], 1)).rejects.toMatchObject({ code: 'EIO' });
    await expect(queue.write(1, [Buffer.from('bc')], 2)).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(queue.write(3, [Buffer.from('d')], 1)).resolves.toBeUndefined();
    await expect(queue.idle()).resolves.toBeUndefined();
  });
});

describe('limits@openssh.com', () => {
  it('advertises the extension in VERSION 3', () => {
    expect(versionPacket()).toEqual(packet(2, Buffer.concat([u32(3), str(Buffer.from('limits@openssh.com')), str(Buffer.from('1'))])));
  });

  it('answers 256 KiB packets, 255 KiB reads and writes, and the handle limit', () => {
    expect(limitsReply(42, { maxOpenHandles: 32 })).toEqual(packet(201, Buffer.concat([u32(42), u64(MAX_PACKET_BYTES), u64(MAX_DATA_BYTES), u64(MAX_DATA_BYTES), u64(32)])));
    expect(MAX_DATA_BYTES).toBe(261_120);
  });
});

describe('cipher policy', () => {
  it.each([
    ['OpenSSH_9.2p1', true],
    ['OpenSSH_6.2', true],
    ['OpenSSH_6.1p1', false],
    ['OpenSSH_10.0', true],
    ['PuTTY_Release_0.81', false],
    ['paramiko_3.4.0', false],
    ['libssh2_1.10.0', false],
  ])('%s is offered AES-GCM only: %s', (software, only) => expect(opensshWithAesGcm(software)).toBe(only));

  it('offers no CBC, no SHA-1 and no SHA-1 key exchange', () => {
    const all = [...SSH_ALGORITHMS.kex, ...SSH_ALGORITHMS.serverHostKey, ...SSH_ALGORITHMS.cipher, ...SSH_ALGORITHMS.hmac];
    expect(all.filter((a) => /cbc|sha1|ssh-rsa$|arcfour|3des|md5/.test(a))).toEqual([]);
  });
});
