// The CLI socket's framing: one JSON object per line, split however the socket delivers the
// bytes; a line over the limit stops the reading; a frame of the wrong shape is refused.
import { describe, expect, it } from 'vitest';
import { lineSplitter, parseFrame } from '../../../src/admin/frames.ts';
import { checkClientFrame, checkDaemonFrame, NEVER_FORWARDED, socketPathFits } from '../../../src/admin/protocol.ts';

function split(chunks: string[], max = 1024) {
  const lines: string[] = [];
  let overflow = 0;
  const push = lineSplitter(max, (l) => lines.push(l), () => overflow++);
  for (const c of chunks) push(Buffer.from(c));
  return { lines, overflow };
}

describe('lineSplitter', () => {
  it('joins a line split across chunks and splits several lines in one chunk', () => {
    expect(split(['{"a":', '1}\n{"b"', ':2}\n{"c":3}\n']).lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps multi-byte characters cut between chunks intact', () => {
    const bytes = Buffer.from('"héllo €"\n');
    const lines: string[] = [];
    const push = lineSplitter(1024, (l) => lines.push(l), () => {});
    push(bytes.subarray(0, 3));
    push(bytes.subarray(3, 9));
    push(bytes.subarray(9));
    expect(lines).toEqual(['"héllo €"']);
  });

  it('stops at a line longer than the limit, whether or not its end has arrived', () => {
    expect(split(['x'.repeat(20)], 10)).toEqual({ lines: [], overflow: 1 });
    expect(split(['12345', '678901\nok\n'], 10)).toEqual({ lines: [], overflow: 1 });
    expect(split(['123456789\n', 'ok\n'], 10)).toEqual({ lines: ['123456789', 'ok'], overflow: 0 });
  });
});

describe('frames', () => {
  it('accepts the client frames of the protocol and nothing else', () => {
    expect(parseFrame('{"t":"run","v":1,"argv":["merchant","list"],"terminal":false}', checkClientFrame)).toMatchObject({ t: 'run' });
    expect(parseFrame('{"t":"file","id":1,"error":{"message":"ENOENT","code":"ENOENT"}}', checkClientFrame)).toMatchObject({ t: 'file' });
    expect(parseFrame('{"t":"run","v":1,"argv":[1],"terminal":false}', checkClientFrame)).toBeUndefined();
    expect(parseFrame('{"t":"out","data":"x"}', checkClientFrame)).toBeUndefined();
    expect(parseFrame('not json', checkClientFrame)).toBeUndefined();
  });

  it('accepts the daemon frames of the protocol and nothing else', () => {
    expect(parseFrame('{"t":"exit","code":78}', checkDaemonFrame)).toEqual({ t: 'exit', code: 78 });
    expect(parseFrame('{"t":"read","id":2,"path":"k.pub"}', checkDaemonFrame)).toMatchObject({ t: 'read', path: 'k.pub' });
    expect(parseFrame('{"t":"exit","code":"0"}', checkDaemonFrame)).toBeUndefined();
  });

  it('never forwards serve or migrate; a socket path must fit sockaddr_un', () => {
    expect([...NEVER_FORWARDED].sort()).toEqual(['migrate', 'serve']);
    expect(socketPathFits(`/${'a'.repeat(106)}`)).toBe(true);
    expect(socketPathFits(`/${'a'.repeat(107)}`)).toBe(false);
  });
});
