// How the daemon's log lines look: JSON lines (journald, a log shipper, a test reading stdout)
// or, on a terminal, one readable line per event: time, level, component, message, then the
// event's own fields as key=value. The readable line is made from the JSON line pino has
// already written, after redaction and scrubbing (src/log.ts), so it can show nothing the JSON
// line would not. Configured by log.format (docs/configuration.md).
import type { DestinationStream } from 'pino';

export type LogFormat = 'auto' | 'json' | 'pretty';

/** `auto` is readable lines on a terminal and JSON lines anywhere else. */
export function resolveLogFormat(format: LogFormat, isTTY: boolean): 'json' | 'pretty' {
  return format === 'auto' ? (isTTY ? 'pretty' : 'json') : format;
}

// Written by the line's head, or of no use to a person reading a terminal.
const HEAD_KEYS = new Set(['time', 'level', 'component', 'msg', 'service', 'pid', 'hostname']);

function text(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** An error on one line: its type, code and message (the stack is in the JSON format). */
function errText(err: unknown): string {
  if (typeof err !== 'object' || err === null) return text(err);
  const e = err as { type?: unknown; code?: unknown; message?: unknown };
  return text(`${String(e.type ?? 'Error')}${e.code ? ` ${String(e.code)}` : ''}: ${String(e.message ?? '')}`);
}

/** One pino JSON line as one readable line; a line that is not JSON is passed on as it is. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const level = String(entry.level ?? '').toUpperCase().padEnd(5);
  const component = entry.component === undefined ? '' : ` [${String(entry.component)}]`;
  const fields = Object.entries(entry)
    .filter(([k, v]) => !HEAD_KEYS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${k === 'err' ? errText(v) : text(v)}`);
  return `${time} ${level}${component} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}

/** A destination that writes each JSON line to `out` as a readable line. */
export function prettyDestination(out: DestinationStream & { flushSync?: () => void; flush?: (cb?: (err?: Error) => void) => void }): DestinationStream {
  return {
    write: (line: string) => out.write(prettyLine(line.endsWith('\n') ? line.slice(0, -1) : line)),
    flush: (cb?: (err?: Error) => void) => (out.flush ? out.flush(cb) : cb?.()),
    flushSync: () => out.flushSync?.(),
  } as DestinationStream;
}
