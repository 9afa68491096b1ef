// The CLI's side of the daemon's socket: when the embedded database's folder is held by a
// running daemon, the command line is sent there and run in-process by the daemon; its
// output, standard input and the files it reads travel over the socket. Files and standard
// input are read here, so relative paths and permissions are the operator's own.
import { connect, type Socket } from 'node:net';
import { dataDirHolder } from '../db/lock.ts';
import { isTerminal, readStdin, readText, type CliIo } from './io.ts';
import { lineSplitter, parseFrame, sendFrame } from './frames.ts';
import { adminSocketPath, checkDaemonFrame, MAX_DAEMON_FRAME_BYTES, PROTOCOL_VERSION, socketPathFits, type DaemonFrame, type ReadFailure } from './protocol.ts';

export interface ForwardOptions {
  dataDir: string;
  /** The arguments after `rescued`. */
  argv: string[];
  io: CliIo;
  /**
   * How long to keep trying while the folder's lock is held by a live process that does not
   * answer yet: a daemon still opening its database, or one stopping, or another command
   * working on the folder directly.
   */
  waitMs?: number;
}

/** A daemon's start-up (PGlite, migrations) takes seconds; after this the holder is reported instead. */
const DEFAULT_WAIT_MS = 15_000;
const RETRY_MS = 100;

/** Nothing listens there: no socket file, or one left by a daemon that was killed. */
const NOT_LISTENING = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK']);

function open(path: string): Promise<Socket | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code && NOT_LISTENING.has(err.code)) return resolve(undefined);
      if (err.code === 'EACCES') return reject(new Error(`cannot use the running daemon's CLI socket ${path}: permission denied; run the command as the user the daemon runs as`));
      reject(err);
    });
  });
}

async function answer(read: () => Promise<string>): Promise<{ data: string } | { error: ReadFailure }> {
  try {
    return { data: await read() };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { error: { message: e?.message ?? String(err), ...(e?.code ? { code: e.code } : {}) } };
  }
}

/** Sends the command line; resolves with the exit status the daemon reports. */
function converse(socket: Socket, argv: string[], io: CliIo): Promise<number> {
  return new Promise((resolve, reject) => {
    let exit: number | undefined;
    let broken: string | undefined;
    const onFrame = (f: DaemonFrame) => {
      if (f.t === 'out') io.out(f.data);
      else if (f.t === 'err') io.err(f.data);
      else if (f.t === 'exit') exit = f.code;
      else if (f.t === 'stdin') void answer(() => readStdin(io)).then((r) => sendFrame(socket, { t: 'stdin', ...r }));
      else void answer(() => readText(io, f.path)).then((r) => sendFrame(socket, { t: 'file', id: f.id, ...r }));
    };
    const fail = (why: string) => {
      broken ??= why;
      socket.destroy();
    };
    socket.on('data', lineSplitter(MAX_DAEMON_FRAME_BYTES, (line) => {
      const frame = parseFrame(line, checkDaemonFrame);
      if (frame) onFrame(frame);
      else fail('a malformed answer');
    }, () => fail('an answer too large')));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (exit !== undefined && !broken) return resolve(exit);
      reject(new Error(`the running daemon ${broken ? `sent ${broken}` : 'closed the CLI connection before the command finished'}; see its log`));
    });
    sendFrame(socket, { t: 'run', v: PROTOCOL_VERSION, argv, terminal: isTerminal(io) });
  });
}

/**
 * Runs the command in the daemon holding the data folder. Resolves with its exit status, or
 * undefined when no daemon answers and the folder is free: the caller then opens it itself.
 */
export async function forwardToDaemon(opts: ForwardOptions): Promise<number | undefined> {
  const path = adminSocketPath(opts.dataDir);
  if (!socketPathFits(path)) return undefined;
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  for (;;) {
    const socket = await open(path);
    if (socket) return converse(socket, opts.argv, opts.io);
    if (dataDirHolder(opts.dataDir) === undefined || Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
