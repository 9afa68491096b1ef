// Progress for long CLI work (batch generation, `webhooks replay --since`, reports over many
// orders): one line on stderr, redrawn in place, only when stderr is a terminal. Piped or
// redirected, nothing is written, so a command's output and a script's log stay clean; stdout
// is never touched. Redraws are throttled: a loop may report every item without paying for a
// terminal write each time, and work that ends within the first interval shows nothing.
import { isTerminal, type CliIo } from '../admin/io.ts';

/** Where progress goes: a stream that says whether it is a terminal (process.stderr is one). */
export interface ProgressSink {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** Default: the process's stderr. */
  sink?: ProgressSink;
  /** How many items the work has, when known: "12,000 of 50,000 (24%)". */
  total?: number | undefined;
  /** What is counted ("entries"); default "done". */
  unit?: string;
  /** Least time between two redraws, and before the first; default 200 ms. */
  intervalMs?: number;
  /**
   * Redraw on a timer with the time spent, for work that reports no counts (one long
   * statement): the line still moves. The timer does not keep the process alive.
   */
  ticking?: boolean;
  now?: () => number;
}

export interface Progress {
  /** `done` items so far (and the total, when it becomes known). */
  update(done: number, total?: number): void;
  /** Ends the progress line: it is erased, so what the command prints next starts clean. */
  finish(): void;
}

const QUIET: Progress = { update: () => {}, finish: () => {} };
const CLEAR_LINE = '\r\x1b[2K';

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The line drawn: "label: 12,000 of 50,000 entries (24%), 3 s". */
export function progressLine(label: string, done: number | undefined, total: number | undefined, unit: string, ms: number): string {
  if (done === undefined) return `${label}: working, ${elapsed(ms)}`;
  const count = total ? `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${unit} (${Math.floor((done / total) * 100)}%)` : `${done.toLocaleString('en-US')} ${unit}`;
  return `${label}: ${count}, ${elapsed(ms)}`;
}

export function createProgress(label: string, opts: ProgressOptions = {}): Progress {
  const sink = opts.sink ?? process.stderr;
  if (sink.isTTY !== true) return QUIET;
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? 200;
  const started = now();
  let done: number | undefined;
  let total = opts.total;
  let drawnAt = started;
  let drawn = false;
  const draw = () => {
    drawnAt = now();
    drawn = true;
    sink.write(`${CLEAR_LINE}${progressLine(label, done, total, opts.unit ?? 'done', drawnAt - started)}`);
  };
  const timer = opts.ticking ? setInterval(draw, interval) : undefined;
  timer?.unref();
  return {
    update(n, t) {
      done = n;
      if (t !== undefined) total = t;
      if (now() - drawnAt >= interval) draw();
    },
    finish() {
      clearInterval(timer);
      if (drawn) sink.write(CLEAR_LINE);
      drawn = false;
    },
  };
}

/** Progress for a CLI command: drawn on its stderr when that is a terminal (CliIo.terminal). */
export function cliProgress(io: CliIo, label: string, opts: Omit<ProgressOptions, 'sink'> = {}): Progress {
  return createProgress(label, { ...opts, sink: { isTTY: isTerminal(io), write: (text) => io.err(text) } });
}
