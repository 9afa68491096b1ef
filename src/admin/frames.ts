// Newline-delimited JSON over a stream socket. JSON.stringify escapes every newline inside a
// string, so a frame is exactly one line. A line longer than the limit ends the reading: the
// caller closes the connection rather than buffer without bound.
import type { Socket } from 'node:net';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema, Static } from '@sinclair/typebox';

/** Feeds socket chunks in; calls onLine for each complete line, onOverflow once if a line exceeds maxBytes. */
export function lineSplitter(maxBytes: number, onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  let dead = false;
  const overflow = () => {
    dead = true;
    parts = [];
    onOverflow();
  };
  return (chunk) => {
    let start = 0;
    while (!dead) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (size + piece.length > maxBytes) return overflow();
      const line = parts.length ? Buffer.concat([...parts, piece]).toString('utf8') : piece.toString('utf8');
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (dead || start === chunk.length) return;
    size += chunk.length - start;
    if (size > maxBytes) return overflow();
    parts.push(chunk.subarray(start));
  };
}

/** The frame in `line` if it is JSON of the checked shape; undefined otherwise. */
export function parseFrame<T extends TSchema>(line: string, check: TypeCheck<T>): Static<T> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return check.Check(value) ? value : undefined;
}

/** Writes one frame; a socket already closed by the other side drops it (nobody is reading). */
export function sendFrame(socket: Socket, frame: object): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(frame)}\n`);
}
