// postgres-js connects with a plain net.Socket, which keeps Nagle's algorithm on. A short
// message written while a large one is still unacknowledged (the end of a COPY, a query
// pipelined behind a big one) then waits for the server's delayed ACK, about 40 ms on Linux.
// Measured here on 500-row COPYs of orders: 7,000 rows/s with Nagle, 20,000 without.
// postgres-js has no option for TCP_NODELAY, only `socket`, a factory for a socket it then
// uses as connected; this is that factory. It tries the URL's hosts in turn, as postgres-js
// does, and gives up on a host after `connect_timeout` as postgres-js would.
import net from 'node:net';

/** The part of postgres-js's parsed options the factory reads. */
export interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
  connect_timeout?: number | null;
}

function open(connect: () => net.Socket, timeoutSeconds: number | null | undefined): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect();
    const timer = timeoutSeconds ? setTimeout(() => socket.destroy(new Error(`connect timeout after ${timeoutSeconds} s`)), timeoutSeconds * 1000) : undefined;
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** A socket factory for postgres-js's `socket` option: connected, with TCP_NODELAY. */
export function noDelaySockets(): (options: SocketOptions) => Promise<net.Socket> {
  let next = 0;
  return async (options) => {
    if (options.path) {
      const path = options.path;
      return open(() => net.connect(path), options.connect_timeout);
    }
    let lastError: unknown;
    for (let tried = 0; tried < options.host.length; tried++) {
      const i = (next + tried) % options.host.length;
      try {
        const host = options.host[i]!;
        const port = options.port[i] ?? options.port[0]!;
        const socket = await open(() => net.connect({ host, port, noDelay: true }), options.connect_timeout);
        next = (i + 1) % options.host.length;
        return socket;
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  };
}

/**
 * libpq names a Unix socket by a folder in the URL's query, as in
 * `postgres://rescued@/rescued?host=/var/run/postgresql`; postgres-js would send that `host` to
 * the server as a setting and fail. Here it becomes the driver's `path` option (the socket
 * file in that folder for the URL's port) and leaves the URL.
 */
export function connectionTarget(url: string): { url: string; path?: string } {
  if (!/[?&]host=(\/|%2f)/i.test(url)) return { url };
  // WHATWG URLs (postgres-js parses with them too) need the host libpq lets one leave out;
  // with a socket it is never used.
  const u = new URL(url.replace(/^([a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?)(?=[:/?#]|$)/i, '$1localhost'));
  const folder = u.searchParams.get('host')!.replace(/\/+$/, '');
  u.searchParams.delete('host');
  return { url: u.toString(), path: `${folder}/.s.PGSQL.${u.port || '5432'}` };
}
