// One webhook POST with node's http/https modules: keep-alive agents (one connection set per
// receiver, reused across deliveries), a hard deadline over connect + answer (15 s by
// default), and the connection pinned to the address url-safety.ts checked. Node's fetch
// was measured beside this in test/bench/webhooks.bench.ts; it has no per-request DNS hook
// without the separate undici package, and the module's `lookup` option is exactly that.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { bareHost, pinnedLookup, refusedRange, systemResolver, type Mode, type Resolver } from './url-safety.ts';

export interface PostResult {
  /** Undefined when no HTTP answer came. */
  statusCode?: number | undefined;
  retryAfter?: string | undefined;
  /** Until the answer's status line, or until the failure. */
  latencyMs: number;
  /** `ERR_WEBHOOK_…: detail` when no answer came. */
  error?: string | undefined;
}

export interface PosterOptions {
  mode: Mode;
  timeoutMs: number;
  /** Sockets per receiver (host and port) and agent. */
  maxSockets: number;
  resolve?: Resolver;
  userAgent?: string;
}

export interface Poster {
  post(url: URL, headers: Record<string, string>, body: string): Promise<PostResult>;
  close(): void;
}

function describe(err: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `ERR_WEBHOOK_TIMEOUT: no answer within ${timeoutMs} ms`;
  if (err.code === 'ERR_WEBHOOK_URL_UNSAFE') return `ERR_WEBHOOK_URL_UNSAFE: ${err.message}`;
  return `ERR_WEBHOOK_CONNECTION: ${err.code ?? err.name}: ${err.message}`.slice(0, 500);
}

export function createPoster(o: PosterOptions): Poster {
  const lookup = pinnedLookup(o.mode, o.resolve ?? systemResolver);
  const agentOptions = { keepAlive: true, maxSockets: o.maxSockets, lookup };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const userAgent = o.userAgent ?? 'rescued-webhooks/1';

  function post(url: URL, headers: Record<string, string>, body: string): Promise<PostResult> {
    const t0 = performance.now();
    const elapsed = () => Math.round(performance.now() - t0);
    // An address literal is not looked up, so the pinned lookup never sees it: check it here.
    const host = bareHost(url);
    const range = isIP(host) ? refusedRange(host, o.mode) : undefined;
    if (range) return Promise.resolve({ latencyMs: 0, error: `ERR_WEBHOOK_URL_UNSAFE: ${host} is a ${range} address` });
    const secure = url.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      let timedOut = false;
      const finish = (r: PostResult) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        lookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': userAgent },
      }, (res) => {
        finish({ statusCode: res.statusCode, retryAfter: res.headers['retry-after'], latencyMs: elapsed() });
        // Drain the answer so the connection can be reused; the deadline still bounds it.
        res.on('end', () => clearTimeout(timer));
        res.on('error', () => clearTimeout(timer));
        res.resume();
      });
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error('timeout'));
      }, o.timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        finish({ latencyMs: elapsed(), error: describe(err, timedOut, o.timeoutMs) });
      });
      req.end(body);
    });
  }

  return {
    post,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
