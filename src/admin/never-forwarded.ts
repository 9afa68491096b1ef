// Apart from the protocol's schemas (src/admin/protocol.ts re-exports it): the CLI checks it on
// every command, and importing the schemas' library cost `rescued --help` tens of ms (issue 28).

/** Commands that are never sent to a running daemon: each needs the data folder to itself. */
export const NEVER_FORWARDED: ReadonlySet<string> = new Set(['serve', 'migrate']);
