// One SSH connection: authentication, the idle timers, and the sessions it opens. Only the
// sftp subsystem is served; shell, exec, other subsystems, X11, agent and port forwarding
// are refused with an audit line.
import type { Socket } from 'node:net';
import type { AuthContext, Connection, PublicKeyAuthContext, Session } from 'ssh2';
import type { Db } from '../db/client.ts';
import { findSftpLogin, type SftpLogin } from '../db/queries/find-sftp-login.ts';
import type { Logger } from '../log.ts';
import type { Audit, AuditFields } from './audit.ts';
import { checkLogin, signatureValid } from './auth.ts';
import type { Handover } from './handover.ts';
import type { AuthThrottle, Counter } from './limits.ts';
import type { Quotas } from './quota.ts';
import type { FileLocks } from './locks.ts';
import { ensureUserDirs } from './paths.ts';
import { serveSession } from './session.ts';

/** Like sshd's MaxAuthTries: a client offering key after key is cut off. */
const MAX_AUTH_ATTEMPTS = 6;

export interface ConnectionSettings {
  maxFileSizeBytes: number;
  maxOpenHandles: number;
  maxInFlightWrites: number;
  idleTimeoutMs: number;
  loginTimeoutMs: number;
  /** Offer OpenSSH clients AES-GCM only (algorithms.ts). */
  preferAesGcm: boolean;
}

export interface ConnectionDeps {
  db: Db;
  root: string;
  settings: ConnectionSettings;
  audit: Audit;
  log: Logger;
  locks: FileLocks;
  handover: Handover;
  throttle: AuthThrottle;
  /** Live connections per merchant. */
  connections: Counter;
  /** Open SFTP sessions per merchant. */
  sessions: Counter;
  /** Storage in inbound/ per merchant. */
  quotas: Quotas;
}

interface LoggedIn {
  login: SftpLogin;
  home: string;
}

/** Calls onIdle once nothing was touched for `limitMs`; the limit may change (login → idle). */
function idleTimer(limitMs: number, onIdle: () => void) {
  let limit = limitMs;
  let last = Date.now();
  let timer: NodeJS.Timeout;
  const arm = (ms: number) => {
    timer = setTimeout(check, ms);
    timer.unref();
  };
  const check = () => {
    const idleFor = Date.now() - last;
    if (idleFor >= limit) onIdle();
    else arm(limit - idleFor);
  };
  arm(limit);
  return {
    touch: () => void (last = Date.now()),
    setLimit(ms: number) {
      limit = ms;
      last = Date.now();
      clearTimeout(timer);
      arm(ms);
    },
    stop: () => clearTimeout(timer),
  };
}

export function handleConnection(client: Connection, socket: Socket, remoteAddress: string, deps: ConnectionDeps): void {
  const { audit, settings } = deps;
  let session: LoggedIn | undefined;
  let attempts = 0;
  let releaseConnection: (() => void) | undefined;
  const logins = new Map<string, Promise<SftpLogin | undefined>>();
  const fields = (extra: AuditFields = {}): AuditFields => ({ username: session?.login.username, mid: session?.login.mid, remoteAddress, ...extra });
  const disconnect = () => {
    client.end();
    setTimeout(() => socket.destroy(), 2000).unref();
  };
  let ended = false;
  const idle = idleTimer(settings.loginTimeoutMs, () => {
    ended = true;
    if (session) audit('logout', fields({ reason: `idle for ${settings.idleTimeoutMs} ms` }));
    else audit('login_refused', fields({ reason: `no login within ${settings.loginTimeoutMs} ms` }));
    disconnect();
  });

  const refuse = (ctx: AuthContext, reason: string, login?: SftpLogin) => {
    deps.throttle.fail(remoteAddress);
    audit('login_refused', { username: ctx.username.slice(0, 64), mid: login?.mid, remoteAddress, reason, method: ctx.method });
    ctx.reject(['publickey']);
    if (deps.throttle.blocked(remoteAddress)) disconnect();
  };

  async function authenticate(ctx: PublicKeyAuthContext): Promise<void> {
    if (!logins.has(ctx.username)) logins.set(ctx.username, findSftpLogin(deps.db, ctx.username));
    const login = await logins.get(ctx.username);
    const check = checkLogin(login, remoteAddress, ctx.key);
    if (!check.ok) return refuse(ctx, check.reason, login);
    // The client asks whether this key would be accepted; it signs in its next request.
    if (!ctx.signature) return ctx.accept();
    if (!signatureValid(check.key, ctx)) return refuse(ctx, 'signature invalid', login);
    const release = deps.connections.tryAcquire(login!.merchantId);
    if (!release) return refuse(ctx, 'too many connections for this merchant', login);
    try {
      const dirs = await ensureUserDirs(deps.root, login!.username);
      releaseConnection = release;
      session = { login: login!, home: dirs.realHome };
    } catch (err) {
      release();
      deps.log.error({ err, username: login!.username }, 'cannot prepare the SFTP home');
      return refuse(ctx, 'home folder unavailable', login);
    }
    ctx.accept();
    audit('login', fields({ keyAlgorithm: ctx.key.algo, cipher }));
  }

  client.on('authentication', (ctx) => {
    if (ctx.method === 'none') return ctx.reject(['publickey']);
    if (++attempts > MAX_AUTH_ATTEMPTS) {
      refuse(ctx, 'too many authentication attempts');
      return disconnect();
    }
    if (ctx.method !== 'publickey') return refuse(ctx, `${ctx.method} authentication is not offered`);
    authenticate(ctx).catch((err: unknown) => {
      deps.log.error({ err }, 'sftp authentication failed');
      ctx.reject(['publickey']);
    });
  });
  // The cipher the client chose, for the login line: which clients still miss AES-GCM.
  let cipher: string | undefined;
  client.on('handshake', (negotiated) => void (cipher = negotiated.cs.cipher));
  client.on('ready', () => idle.setLimit(settings.idleTimeoutMs));
  client.on('session', (accept, reject) => (session ? onSession(accept()) : reject()));
  client.on('tcpip', (_accept, reject, info) => {
    audit('session_refused', fields({ reason: `port forwarding to ${info.destIP}:${info.destPort} is not allowed` }));
    reject();
  });
  client.on('openssh.streamlocal', (_accept, reject) => {
    audit('session_refused', fields({ reason: 'socket forwarding is not allowed' }));
    reject();
  });
  client.on('request', (_accept, reject, name) => {
    audit('session_refused', fields({ reason: `${name} is not allowed` }));
    reject?.();
  });
  client.on('error', (err) => deps.log.debug({ err, remoteAddress }, 'ssh connection error'));
  client.on('close', () => {
    idle.stop();
    releaseConnection?.();
    if (session && !ended) audit('logout', fields());
  });

  function onSession(ssh: Session): void {
    ssh.on('sftp', (accept, reject) => {
      const login = session!.login;
      const release = deps.sessions.tryAcquire(login.merchantId);
      if (!release) {
        audit('session_refused', fields({ reason: 'too many SFTP sessions for this merchant' }));
        return reject();
      }
      serveSession(
        { sftp: accept(), home: session!.home, who: { merchantId: login.merchantId, mid: login.mid, username: login.username }, remoteAddress, limits: settings, quotas: deps.quotas, audit, locks: deps.locks, handover: deps.handover, log: deps.log, touch: idle.touch },
        release,
      );
    });
    for (const kind of ['shell', 'exec', 'subsystem', 'x11', 'auth-agent'] as const) {
      ssh.on(kind, (_accept: unknown, reject: (() => void) | undefined, info?: { command?: string; name?: string }) => {
        const what = info?.command !== undefined ? `exec "${info.command.slice(0, 200)}"` : info?.name !== undefined ? `subsystem ${info.name}` : kind;
        audit('session_refused', fields({ reason: `${what} is not allowed: SFTP only` }));
        reject?.();
      });
    }
    ssh.on('pty', (_accept, reject) => reject?.());
    ssh.on('env', (_accept, reject) => reject?.());
  }
}
