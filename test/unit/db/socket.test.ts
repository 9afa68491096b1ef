// The socket factory handed to postgres-js: it must connect where postgres-js would (each
// host of the URL in turn, or the unix socket), and fail the way a refused connection fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionTarget, noDelaySockets } from '../../../src/db/socket.ts';

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
  afterAll(() => Promise.all([a, b, unix].map((s) => new Promise((r) => s.close(r)))));

  const port = (s: net.Server) => (s.address() as net.AddressInfo).port;
  const until = async (n: number) => { while (accepted.length < n) await new Promise((r) => setTimeout(r, 5)); };

  it('skips a host that refuses and connects to the next', async () => {
    accepted.length = 0;
    const socket = await noDelaySockets()({ host: ['127.0.0.1', '127.0.0.1'], port: [closedPort, port(a)], connect_timeout: 5 });
    await until(1);
    expect(accepted).toEqual(['a']);
    expect(socket.remotePort).toBe(port(a));
    socket.destroy();
  });

  it('takes the hosts in turn from one connection to the next', async () => {
    accepted.length = 0;
    const open = noDelaySockets();
    const opts = { host: ['127.0.0.1', '127.0.0.1'], port: [port(a), port(b)], connect_timeout: 5 };
    for (let i = 0; i < 3; i++) (await open(opts)).destroy();
    await until(3);
    expect(accepted.sort()).toEqual(['a', 'a', 'b']);
  });

  it('uses the unix socket when there is one', async () => {
    accepted.length = 0;
    (await noDelaySockets()({ host: ['localhost'], port: [5432], path, connect_timeout: 5 })).destroy();
    await until(1);
    expect(accepted).toEqual(['unix']);
  });

  it('rejects with the connection error when no host answers', async () => {
    await expect(noDelaySockets()({ host: ['127.0.0.1'], port: [closedPort], connect_timeout: 5 })).rejects.toThrow(/ECONNREFUSED/);
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
