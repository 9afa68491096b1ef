// A raw HTTP/1.1 client on a plain socket: abuse needs byte-exact requests (invalid UTF-8,
// a Content-Length that lies, a header of 64 KiB) that fetch and node:http refuse to send.
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send these bytes as they are instead of building a request (a broken request line…). */
  raw?: Buffer;
  /** Close our side after sending (a body shorter than its Content-Length). */
  endEarly?: boolean;
}

export interface RawResponse {
  /** 0: the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
  json: Record<string, unknown> | undefined;
}

function build(req: RawRequest, host: string): Buffer {
  if (req.raw) return req.raw;
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const chunked = Object.keys(req.headers ?? {}).some((k) => k.toLowerCase() === 'transfer-encoding');
  const length: Record<string, string> = body && !chunked ? { 'content-length': String(body.length) } : {};
  const headers: Record<string, string> = { host, connection: 'close', ...length, ...req.headers };
  return Buffer.from(`${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`, 'latin1');
}

/** Past this size the head goes first: a server that refuses on the head alone answers before the body is sent, and its answer is not lost to a reset. */
const HEAD_FIRST = 64 * 1024;

function parse(bytes: Buffer): RawResponse {
  const split = bytes.indexOf('\r\n\r\n');
  if (bytes.length === 0 || split < 0) return { status: 0, headers: {}, body: bytes.toString('utf8'), json: undefined };
  const [statusLine, ...lines] = bytes.subarray(0, split).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let raw = bytes.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') raw = dechunk(raw);
  const body = raw.toString('utf8');
  let json: Record<string, unknown> | undefined;
  try {
    json = headers['content-type']?.includes('json') ? (JSON.parse(body) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body, json };
}

function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** One request on its own connection; resolves with what came back before the server closed it. */
export function send(base: string, req: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${req.method} ${req.path.slice(0, 80)}`));
    }, timeoutMs);
    socket.on('connect', () => {
      const body = req.raw || req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
      socket.write(build(req, url.host));
      const rest = () => {
        if (body && chunks.length === 0 && !socket.destroyed) socket.write(body);
        if (req.endEarly) socket.end();
      };
      if (body && body.length > HEAD_FIRST) setTimeout(rest, 300);
      else rest();
    });
    socket.on('data', (d) => chunks.push(d));
    // A reset after a refusal is how some limits end a request: what arrived still counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks)));
    });
  });
}
