// postgres-js connects with a plain net.Socket, which keeps Nagle's algorithm on. A short
// message written while a large one is still unacknowledged (the end of a COPY, a query
// pipelined behind a big one) then waits for the server's delayed ACK, about 40 ms on Linux.
// Measured here on 500-row COPYs of orders: 7,000 rows/s with Nagle, 20,000 without.
// postgres-js has no option for TCP_NODELAY, only `socket`, a factory for its sockets; this is
// that factory.
//
// It returns the socket while it is still connecting (Node holds what is written until it
// is connected), so that postgres-js hears of a refused or failed connection the way it does
// with its own sockets: the socket's `error` and `close` events, after which it returns the
// connection to its pool and connects again later. A factory that waits for the connection and
// rejects loses the connection instead: postgres-js then leaves it "connecting" for good, and
// once a PostgreSQL outage had failed as many connections as the pool holds, every query
// waited forever (found by the fault campaign's pg-unreachable). Hosts are taken in turn, one
// per connection, so a host that failed is followed by the next; postgres-js's connect_timeout
// applies as with its own sockets.
import net from 'node:net';

/** The part of postgres-js's parsed options the factory reads. */
export interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/** A socket factory for postgres-js's `socket` option: TCP_NODELAY, hosts in turn. */
export function noDelaySockets(): (options: SocketOptions) => net.Socket {
  let next = 0;
  return (options) => {
    if (options.path) return net.connect(options.path);
    const i = next % options.host.length;
    next = (i + 1) % options.host.length;
    return net.connect({ host: options.host[i]!, port: options.port[i] ?? options.port[0]!, noDelay: true });
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
