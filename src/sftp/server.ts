// The SFTP stage: host keys, the merchants' folders, the listening socket with its early
// address check, the ssh2 server, and the inbound watcher. Complete batch files are handed
// to intake through `onFileReady` (see handover.ts for the contract).
import { mkdir, readdir, realpath, stat, unlink } from 'node:fs/promises';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/client.ts';
import { findSftpLogin } from '../db/queries/find-sftp-login.ts';
import { listAllowedSftpCidrs } from '../db/queries/list-sftp-cidrs.ts';
import { listSftpUsers } from '../db/queries/list-sftp-users.ts';
import type { Logger } from '../log.ts';
import { addressInRanges, normaliseAddress } from './addresses.ts';
import { narrowOffer, SSH_ALGORITHMS } from './algorithms.ts';
import { createAudit, type Audit } from './audit.ts';
import { handleConnection, type ConnectionDeps } from './connection.ts';
import { createHandover, type OnFileReady } from './handover.ts';
import { loadHostKeys } from './host-keys.ts';
import { createAuthThrottle, createCounter } from './limits.ts';
import { createQuotas } from './quota.ts';
import { archiveDir } from '../config/paths.ts';
import { createFileLocks, type FileLocks } from './locks.ts';
import { UPLOAD_TEMP_PREFIX } from './names.ts';
import { sshNativeCrypto } from './native.ts';
import { ensureUserDirs, hostKeyDir, sftpRootDir, type UserDirs } from './paths.ts';
import { watchInbound, type InboundWatcher } from './watcher.ts';

export type SftpConfig = Config['sftp'];

export interface SftpStageOptions {
  config: SftpConfig;
  dataDir: string;
  db: Db;
  log: Logger;
  onFileReady: OnFileReady;
}

export interface SftpStage {
  host: string;
  port: number;
  /** The data root (symbolic links resolved): `<root>/<username>/{inbound,outbound}`. */
  root: string;
  /** Files being ingested: intake may hold a file longer than its onFileReady call. */
  locks: FileLocks;
  nativeCrypto: boolean;
  hostKeys: { type: string; fingerprint: string }[];
  /** Creates a user's folders (also done at start and at each login). */
  ensureUserDirs(username: string): Promise<UserDirs>;
  stop(): Promise<void>;
}

/** Upload temp files left by a crash; a day old, so another replica's live upload is spared. */
const STALE_TEMP_MS = 24 * 3600 * 1000;
const STOP_GRACE_MS = 2000;

async function prepareFolders(db: Db, root: string, log: Logger): Promise<void> {
  for (const user of await listSftpUsers(db)) {
    try {
      const dirs = await ensureUserDirs(root, user.username);
      // Temps were written beside their target before they moved to dirs.uploads.
      await removeStaleTemps(dirs.inbound);
      await removeStaleTemps(dirs.uploads);
    } catch (err) {
      log.warn({ err, username: user.username }, 'cannot prepare SFTP folders');
    }
  }
}

async function removeStaleTemps(inbound: string): Promise<void> {
  const names = await readdir(inbound, { recursive: true });
  for (const name of names.filter((n) => n.split('/').pop()!.startsWith(UPLOAD_TEMP_PREFIX))) {
    const path = join(inbound, name);
    const st = await stat(path).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(() => {});
  }
}

interface Gate {
  server: NetServer;
  sockets: Set<Socket>;
  stopping: { value: boolean };
}

/** TCP accept: refuse throttled addresses and addresses in no merchant's allow list before any SSH byte. */
function openGate(ssh: ssh2.Server, deps: ConnectionDeps, audit: Audit): Gate {
  const sockets = new Set<Socket>();
  const stopping = { value: false };
  const pending = new Map<string, Socket>();
  ssh.on('connection', (client, info) => {
    const key = `${info.ip}:${info.port}`;
    const socket = pending.get(key);
    pending.delete(key);
    if (!socket) return client.end();
    narrowOffer(client, info.header.versions.software, deps.settings.preferAesGcm);
    handleConnection(client, socket, normaliseAddress(info.ip), deps);
  });
  const server = createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 }, (socket) => {
    const address = normaliseAddress(socket.remoteAddress);
    const key = `${socket.remoteAddress}:${socket.remotePort}`;
    socket.on('error', () => {});
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      pending.delete(key);
    });
    // No SSH header in time: the ssh2 connection (and its login timer) never starts.
    const headerTimer = setTimeout(() => {
      if (pending.has(key)) socket.destroy();
    }, deps.settings.loginTimeoutMs);
    headerTimer.unref();
    const refuse = (reason: string) => {
      audit('connection_refused', { remoteAddress: address, reason });
      socket.destroy();
    };
    if (deps.throttle.blocked(address)) return refuse('too many refused logins from this address');
    listAllowedSftpCidrs(deps.db).then(
      (cidrs) => {
        if (stopping.value) return socket.destroy();
        if (!addressInRanges(address, cidrs)) {
          deps.throttle.fail(address);
          return refuse('address in no merchant allow list');
        }
        pending.set(key, socket);
        ssh.injectSocket(socket);
      },
      (err: unknown) => {
        deps.log.error({ err }, 'cannot read the SFTP allow lists');
        socket.destroy();
      },
    );
  });
  return { server, sockets, stopping };
}

async function listen(server: NetServer, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

export async function startSftp(opts: SftpStageOptions): Promise<SftpStage> {
  const { config, db } = opts;
  const log = opts.log.child({ component: 'sftp' });
  await mkdir(sftpRootDir(opts.dataDir, config.rootDir), { recursive: true, mode: 0o750 });
  const root = await realpath(sftpRootDir(opts.dataDir, config.rootDir));
  const hostKeys = await loadHostKeys(hostKeyDir(root), log);
  await prepareFolders(db, root, log);

  const audit = createAudit(opts.log);
  const locks = createFileLocks();
  const handover = createHandover({
    root,
    locks,
    audit,
    log,
    onFileReady: opts.onFileReady,
    findOwner: async (username) => {
      const login = await findSftpLogin(db, username);
      return login && { merchantId: login.merchantId, mid: login.mid, username: login.username };
    },
  });
  const deps: ConnectionDeps = {
    db,
    root,
    settings: config,
    audit,
    log,
    locks,
    handover,
    throttle: createAuthThrottle(config.authFailuresPerMinute),
    connections: createCounter(config.maxSessionsPerMerchant),
    sessions: createCounter(config.maxSessionsPerMerchant),
    quotas: createQuotas(config, archiveDir(opts.dataDir)),
  };
  const ssh = new ssh2.Server({ hostKeys: hostKeys.map((k) => k.privateKey), ident: 'rescued', algorithms: SSH_ALGORITHMS });
  const gate = openGate(ssh, deps, audit);
  let watcher: InboundWatcher | undefined;
  try {
    watcher = await watchInbound({ root, stabilityMs: config.watchStabilityMs, rescanMs: config.watchRescanMs, handover, log });
    const port = await listen(gate.server, config.host, config.port);
    let stopping: Promise<void> | undefined;
    return {
      host: config.host,
      port,
      root,
      locks,
      nativeCrypto: sshNativeCrypto(),
      hostKeys: hostKeys.map(({ type, fingerprint }) => ({ type, fingerprint })),
      ensureUserDirs: (username) => ensureUserDirs(root, username),
      stop: () => (stopping ??= stop(gate, watcher, handover)),
    };
  } catch (err) {
    await stop(gate, watcher, handover);
    throw err;
  }
}

async function stop(gate: Gate, watcher: InboundWatcher | undefined, handover: { drain(): Promise<void> }): Promise<void> {
  gate.stopping.value = true;
  const closed = new Promise<void>((resolve) => gate.server.close(() => resolve()));
  // Ending the socket sends a TCP FIN: clients see the connection close, open uploads are
  // discarded (their temp files removed) and can be sent again.
  for (const socket of gate.sockets) socket.end();
  const deadline = Date.now() + STOP_GRACE_MS;
  while (gate.sockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const socket of gate.sockets) socket.destroy();
  await closed;
  await watcher?.close();
  await handover.drain();
}
