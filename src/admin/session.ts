// One CLI connection on the daemon's side: read the command line, run it with a CliIo whose
// database and configuration are the daemon's own, stream its output back, and answer with
// its exit status. Standard input and files are asked of the client when the command reads
// them. Nothing a client sends is logged: standard input carries gateway credentials.
import type { Socket } from 'node:net';
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { CliIo, CommandRunner } from './io.ts';
import { lineSplitter, parseFrame, sendFrame } from './frames.ts';
import { checkClientFrame, MAX_CLIENT_FRAME_BYTES, PROTOCOL_VERSION, type ClientFrame, type ReadFailure, type RunFrame } from './protocol.ts';

export interface SessionDeps {
  config: ResolvedConfig;
  database: Database;
  runCommand: CommandRunner;
  log: Logger;
}

/** A client that connects and says nothing is dropped after this long. */
const HELLO_TIMEOUT_MS = 10_000;

interface Pending {
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

/** The client's read error as the command would have met it reading the file itself. */
function readError(failure: ReadFailure): Error {
  return Object.assign(new Error(failure.message), failure.code ? { code: failure.code } : {});
}

function settle(pending: Pending | undefined, reply: { data?: string | undefined; error?: ReadFailure | undefined }): void {
  if (!pending) return;
  if (reply.error) pending.reject(readError(reply.error));
  else pending.resolve(reply.data ?? '');
}

export interface Connection {
  /** Resolves once the connection has closed and its command, if one started, has finished. */
  finished: Promise<void>;
  /** Whether a command was sent (a stopping daemon waits for it; a client that sent none is dropped). */
  started(): boolean;
}

/** How long a client has to close its end after the exit status before it is cut off. */
const CLOSE_GRACE_MS = 2_000;

export function serveConnection(socket: Socket, deps: SessionDeps): Connection {
  const reads = new Map<number, Pending>();
  let stdinWait: Pending | undefined;
  let stdin: Promise<string> | undefined;
  let nextId = 1;
  let command: Promise<void> | undefined;
  let running = false;
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const hello = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);

  const ask = (frame: object, register: (p: Pending) => void): Promise<string> =>
    new Promise((resolve, reject) => {
      if (socket.destroyed) return reject(new Error('the CLI client went away'));
      register({ resolve, reject });
      sendFrame(socket, frame);
    });
  const io = (frame: RunFrame): Omit<CliIo, 'setExitCode'> => ({
    config: deps.config,
    database: deps.database,
    terminal: frame.terminal,
    out: (data) => sendFrame(socket, { t: 'out', data }),
    err: (data) => sendFrame(socket, { t: 'err', data }),
    stdin: () => (stdin ??= ask({ t: 'stdin' }, (p) => (stdinWait = p))),
    readFile: (path) => {
      const id = nextId++;
      return ask({ t: 'read', id, path }, (p) => reads.set(id, p));
    },
  });
  const run = async (frame: RunFrame) => {
    running = true;
    clearTimeout(hello);
    const code = await runOne(frame, io(frame), deps);
    running = false;
    sendFrame(socket, { t: 'exit', code });
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
  const onFrame = (frame: ClientFrame) => {
    if (frame.t === 'run') {
      command ??= run(frame);
    } else if (frame.t === 'stdin') {
      settle(stdinWait, frame);
      stdinWait = undefined;
    } else {
      settle(reads.get(frame.id), frame);
      reads.delete(frame.id);
    }
  };
  const drop = (msg: string, fields: object) => {
    deps.log.warn(fields, msg);
    socket.destroy();
  };
  socket.on('data', lineSplitter(
    MAX_CLIENT_FRAME_BYTES,
    (line) => {
      const frame = parseFrame(line, checkClientFrame);
      if (frame) onFrame(frame);
      else drop('CLI socket: malformed frame; connection closed', { bytes: Buffer.byteLength(line) });
    },
    () => drop('CLI socket: frame too large; connection closed', { maxBytes: MAX_CLIENT_FRAME_BYTES }),
  ));
  socket.on('error', () => {});
  socket.on('close', () => {
    clearTimeout(hello);
    const gone = new Error('the CLI client went away');
    for (const p of reads.values()) p.reject(gone);
    reads.clear();
    stdinWait?.reject(gone);
    // A command already running finishes (each is one transaction, or safe to run again);
    // only its output is lost. A Ctrl-C on the client does not undo what it already started.
    if (running) deps.log.info('CLI client disconnected while its command runs; the command finishes');
  });
  return { finished: closed.then(() => command), started: () => command !== undefined };
}

/** Runs the command line; returns its exit status. */
async function runOne(frame: RunFrame, io: Omit<CliIo, 'setExitCode'>, deps: SessionDeps): Promise<number> {
  let code = 0;
  const ioWithCode: CliIo = { ...io, setExitCode: (c) => void (code = c) };
  if (frame.v !== PROTOCOL_VERSION) {
    io.err(`rescued: the running daemon speaks CLI protocol ${PROTOCOL_VERSION}, this command ${frame.v}; run the same version of rescued as the daemon\n`);
    return 1;
  }
  const t0 = Date.now();
  let command: string | undefined;
  try {
    command = await deps.runCommand(frame.argv, ioWithCode);
  } catch (err) {
    deps.log.error({ err }, 'CLI command failed in the daemon');
    io.err(`rescued: ${(err as Error)?.message ?? String(err)}\n`);
    code = 1;
  }
  deps.log.info({ command: command ?? null, exitCode: code, ms: Date.now() - t0 }, 'CLI command run');
  return code;
}
