// The CLI socket's protocol, version 1: newline-delimited JSON frames over a Unix socket in
// the data folder. The client sends the command line; the daemon runs it and streams back its
// output, asks for standard input or a named file only when the command reads them (so an
// interactive `rescued merchant list` never waits on a terminal's stdin), and ends with the
// exit status. Each side checks every frame it receives against the schemas here.
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export const PROTOCOL_VERSION = 1;

export { NEVER_FORWARDED } from './never-forwarded.ts';

/** Beside the PGlite lock file, which says whose the folder is. */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'rescued.sock');
}

/** sockaddr_un holds 108 bytes on Linux, the terminating NUL included. */
export const MAX_SOCKET_PATH_BYTES = 107;

export function socketPathFits(path: string): boolean {
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Largest frame the daemon reads: a file or standard input a command reads arrives in one
 * frame. Public keys and gateway credentials are a few kilobytes; this bounds what a stuck
 * or hostile local client can make the daemon hold.
 */
export const MAX_CLIENT_FRAME_BYTES = 16 * 1024 * 1024;
/** Largest frame the client reads: one write of a command's output (a long --json listing). */
export const MAX_DAEMON_FRAME_BYTES = 512 * 1024 * 1024;

const Run = Type.Object({
  t: Type.Literal('run'),
  v: Type.Integer(),
  argv: Type.Array(Type.String(), { maxItems: 1000 }),
  terminal: Type.Boolean(),
});
const ReadFailure = Type.Object({ message: Type.String(), code: Type.Optional(Type.String()) });
const StdinReply = Type.Object({ t: Type.Literal('stdin'), data: Type.Optional(Type.String()), error: Type.Optional(ReadFailure) });
const FileReply = Type.Object({ t: Type.Literal('file'), id: Type.Integer(), data: Type.Optional(Type.String()), error: Type.Optional(ReadFailure) });

export const ClientFrame = Type.Union([Run, StdinReply, FileReply]);
export type ClientFrame = Static<typeof ClientFrame>;
export type RunFrame = Static<typeof Run>;
export type ReadFailure = Static<typeof ReadFailure>;

export const DaemonFrame = Type.Union([
  Type.Object({ t: Type.Literal('out'), data: Type.String() }),
  Type.Object({ t: Type.Literal('err'), data: Type.String() }),
  Type.Object({ t: Type.Literal('stdin') }),
  Type.Object({ t: Type.Literal('read'), id: Type.Integer(), path: Type.String() }),
  Type.Object({ t: Type.Literal('exit'), code: Type.Integer() }),
]);
export type DaemonFrame = Static<typeof DaemonFrame>;

export const checkClientFrame = TypeCompiler.Compile(ClientFrame);
export const checkDaemonFrame = TypeCompiler.Compile(DaemonFrame);
