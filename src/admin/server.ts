// The daemon's CLI socket: a Unix socket in the data folder through which `rescued` commands
// run inside the daemon while it holds the embedded database (PGlite is single-process; see
// docs/operations.md "The CLI beside a running daemon"). File permissions are the access
// control: the socket is created 0600 (owner only) in the 0700 data folder, and no TCP port
// is opened. Started after storage and stopped before it, so a command always has its database.
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { adminSocketPath, socketPathFits } from './protocol.ts';
import { serveConnection, type Connection, type SessionDeps } from './session.ts';

export interface AdminStage {
  path: string;
  /** Stops accepting, waits for the commands running, removes the socket. */
  stop(): Promise<void>;
}

/** Connections at once (each a CLI command); more are closed at once. Commands share PGlite, one statement at a time, anyway. */
const MAX_CONNECTIONS = 64;

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // The socket file is made by bind(), synchronously inside listen(): under this umask it
    // is never, even briefly, open to others. The chmod below repeats it for clarity.
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.removeListener('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
}

/**
 * Listens on <dataDir>/rescued.sock. Undefined when the path is longer than a Unix socket
 * address holds (Node would silently truncate it): commands then report the folder in use.
 */
export async function startAdminStage(deps: SessionDeps & { dataDir: string }): Promise<AdminStage | undefined> {
  const path = adminSocketPath(deps.dataDir);
  if (!socketPathFits(path)) {
    deps.log.warn({ path }, 'CLI socket path too long for a Unix socket: CLI commands cannot run beside this daemon; use a shorter dataDir');
    return undefined;
  }
  // The data folder's lock is this process's, so a socket file there was left by a daemon
  // that was killed; nothing answers on it.
  rmSync(path, { force: true });
  const connections = new Map<Socket, Connection>();
  const server = createServer((socket) => {
    connections.set(socket, serveConnection(socket, deps));
    socket.on('close', () => connections.delete(socket));
  });
  server.maxConnections = MAX_CONNECTIONS;
  await listen(server, path);
  chmodSync(path, 0o600);
  return {
    path,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [socket, c] of connections) if (!c.started()) socket.destroy();
      // A command sent finishes and its client reads the exit status (or is cut off after a grace period).
      await Promise.allSettled([...connections.values()].map((c) => c.finished));
      await closed;
      rmSync(path, { force: true });
    },
  };
}
