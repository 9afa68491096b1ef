// One POST to a gateway over node:http(s), for the clients written without an SDK
// (Authorize.Net, NMI): bounded in time (from start to the end of the answer) and in the size
// of the answer, and saying, when it fails, whether any byte of the request may have left —
// the difference between a call that charged nothing (not_sent) and an unknown outcome. Each
// connector classifies the failure in its own words.
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostAnswer {
  status: number;
  text: string;
}

export interface PostOptions {
  headers: Record<string, string | number>;
  timeoutMs: number;
  maxAnswerBytes: number;
  /** An agent of the caller's, or false for a new connection per call. */
  agent: Agent | false;
  /** CA certificates to trust (https only), when not the agent's. */
  ca?: string[];
}

/** Why a POST failed: the underlying error, and whether the connection was up when it did. */
export class PostFailure extends Error {
  readonly sent: boolean;
  constructor(cause: unknown, sent: boolean) {
    super('post failed', { cause });
    this.sent = sent;
  }
}

export function postOnce(url: URL, body: string, o: PostOptions): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    let sent = false;
    const fail = (err: unknown) => reject(new PostFailure(err, sent));
    const options = { method: 'POST', headers: o.headers, agent: o.agent, signal: AbortSignal.timeout(o.timeoutMs), ...(secure && o.ca ? { ca: o.ca } : {}) };
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > o.maxAnswerBytes) req.destroy(Object.assign(new Error('answer too large'), { code: 'ANSWER_TOO_LARGE' }));
        else chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('answer cut short'), { code: 'ECONNRESET' }));
      });
    });
    // Bytes leave only once the connection (and its TLS handshake) is up.
    req.on('socket', (socket) => {
      if (!socket.connecting) sent = true;
      else socket.once(secure ? 'secureConnect' : 'connect', () => void (sent = true));
    });
    req.on('error', fail);
    req.end(body);
  });
}
