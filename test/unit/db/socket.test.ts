// The socket factory handed to postgres-js: it must connect where postgres-js would (the
// URL's hosts in turn, or the unix socket), with TCP_NODELAY, and report a refused connection
// through the socket's own events, which postgres-js listens to (a rejected factory leaves
// postgres-js's connection "connecting" for good: test/integration/db/connection-loss.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectionTarget, noDelaySockets } from '../../../src/db/socket.ts';
import { waitFor } from '../../helpers/wait.ts';

function listen(server: net.Server, where: number | string): Promise<void> {
  return new Promise((resolve) => server.listen(where, () => resolve()));
}

describe('postgres sockets with TCP_NODELAY', () => {
  const accepted: string[] = [];
  const a = net.createServer((s) => { accepted.push('a'); s.end(); });
  const b = net.createServer((s) => { accepted.push('b'); s.end(); });
  const unix = net.createServer((s) => { accepted.push('unix'); s.end(); });
  const path = join(mkdtempSync(join(tmpdir(), 'rescued-sock-')), '.s.PGSQL.5432');
  let closedPort = 0;

  beforeAll(async () => {
    await Promise.all([listen(a, 0), listen(b, 0), listen(unix, path)]);
    const probe = net.createServer();
    await listen(probe, 0);
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
  });
  afterAll(async () => {
    await Promise.all([a, b, unix].map((s) => new Promise((r) => s.close(r))));
    rmSync(dirname(path), { recursive: true, force: true });
  });

  const port = (s: net.Server) => (s.address() as net.AddressInfo).port;
  const accepting = (n: number) => waitFor(() => accepted.length >= n, { what: `${n} connections accepted` });

  it('hands over the socket while it connects, with TCP_NODELAY; what is written first arrives', async () => {
    const got: Buffer[] = [];
    const echo = net.createServer((s) => s.on('data', (d: Buffer) => got.push(d)));
    await listen(echo, 0);
    const socket = noDelaySockets()({ host: ['127.0.0.1'], port: [port(echo)] });
    expect(socket.connecting).toBe(true);
    socket.write('startup');
    await once(socket, 'connect');
    await waitFor(() => got.length > 0, { what: 'the first bytes at the server' });
    expect(Buffer.concat(got).toString()).toBe('startup');
    socket.destroy();
    await new Promise((r) => echo.close(r));
  });

  it('takes the hosts in turn from one connection to the next', async () => {
    accepted.length = 0;
    const open = noDelaySockets();
    const opts = { host: ['127.0.0.1', '127.0.0.1'], port: [port(a), port(b)] };
    for (let i = 0; i < 3; i++) open(opts).once('connect', function (this: net.Socket) { this.destroy(); });
    await accepting(3);
    expect(accepted.sort()).toEqual(['a', 'a', 'b']);
  });

  it('uses the unix socket when there is one', async () => {
    accepted.length = 0;
    noDelaySockets()({ host: ['localhost'], port: [5432], path }).once('connect', function (this: net.Socket) { this.destroy(); });
    await accepting(1);
    expect(accepted).toEqual(['unix']);
  });

  it('a refused connection is told by the socket itself: error, then close', async () => {
    const socket = noDelaySockets()({ host: ['127.0.0.1'], port: [closedPort] });
    const closed = new Promise((r) => socket.once('close', r));
    const [err] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
    await closed;
  });
});

describe('connection targets', () => {
  it('turns a libpq socket folder (?host=/dir) into the socket file for the URL\'s port', () => {
    expect(connectionTarget('postgres://rescued@/rescued?host=/var/run/postgresql')).toEqual({ url: 'postgres://rescued@localhost/rescued', path: '/var/run/postgresql/.s.PGSQL.5432' });
    expect(connectionTarget('postgres://rescued:pw@:6543/db?host=%2Ftmp%2F&sslmode=disable')).toEqual({ url: 'postgres://rescued:pw@localhost:6543/db?sslmode=disable', path: '/tmp/.s.PGSQL.6543' });
    expect(connectionTarget('postgres:///db?host=/run/pg')).toEqual({ url: 'postgres://localhost/db', path: '/run/pg/.s.PGSQL.5432' });
  });

  it('leaves a TCP URL alone, with any other query', () => {
    for (const url of ['postgres://postgres@127.0.0.1:5432/test', 'postgres://u@db1,db2/x?sslmode=require', 'postgres://u@h/x?host=db.internal']) {
      expect(connectionTarget(url)).toEqual({ url });
    }
  });
});
