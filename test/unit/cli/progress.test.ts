// Progress for long CLI work: drawn on a terminal, throttled, erased at the end; nothing at
// all when stderr is piped. The terminal is a sink that says isTTY, and time is a fake clock.
import { describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProgress, createProgress, progressLine } from '../../../src/cli/progress.ts';
import type { CliIo } from '../../../src/admin/io.ts';
import { main as generateBatch, USAGE } from '../../../samples/generate-batch.ts';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, sink: { isTTY, write: (t: string) => void writes.push(t) } };
}

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('createProgress', () => {
  it('on a terminal: nothing in the first interval, then at most one redraw per interval, erased by finish', () => {
    const { writes, sink: s } = sink(true);
    const c = clock();
    const p = createProgress('writing big.json', { sink: s, total: 1_000_000, unit: 'entries', intervalMs: 200, now: c.now });
    for (let i = 1; i <= 100; i++) p.update(i);
    expect(writes).toEqual([]);
    c.advance(200);
    p.update(12_000);
    c.advance(50);
    for (let i = 12_001; i < 13_000; i++) p.update(i);
    c.advance(150);
    p.update(250_000);
    p.finish();
    expect(writes).toEqual([
      '\r\x1b[2Kwriting big.json: 12,000 of 1,000,000 entries (1%), 0 s',
      '\r\x1b[2Kwriting big.json: 250,000 of 1,000,000 entries (25%), 0 s',
      '\r\x1b[2K',
    ]);
  });

  it('piped (not a terminal): writes nothing at all, whatever happens', () => {
    const { writes, sink: s } = sink(false);
    const c = clock();
    const p = createProgress('writing', { sink: s, total: 10, now: c.now, intervalMs: 1 });
    for (let i = 0; i < 10; i++) {
      c.advance(1_000);
      p.update(i);
    }
    p.finish();
    expect(writes).toEqual([]);
  });

  it('work that ends within the first interval leaves nothing behind, not even the erase', () => {
    const { writes, sink: s } = sink(true);
    const p = createProgress('quick', { sink: s, now: clock().now });
    p.update(5);
    p.finish();
    expect(writes).toEqual([]);
  });

  it('ticking: the line moves on a timer while one long step runs, and stops at finish', async () => {
    const { writes, sink: s } = sink(true);
    // The timer and the clock are the test's: 60 ms pass when it says so, however busy the machine.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const p = createProgress('webhooks replay --since 24h', { sink: s, ticking: true, intervalMs: 10 });
      vi.advanceTimersByTime(60);
      p.finish();
      const count = writes.length;
      vi.advanceTimersByTime(30);
      expect(count).toBe(7);
      expect(writes[0]).toBe('\r\x1b[2Kwebhooks replay --since 24h: working, 0 s');
      expect(writes.at(-1)).toBe('\r\x1b[2K');
      expect(writes).toHaveLength(count);
    } finally {
      vi.useRealTimers();
    }
  });

  it('formats counts without a total, and long times in minutes', () => {
    expect(progressLine('replay', 1234, undefined, 'events', 83_000)).toBe('replay: 1,234 events, 1 min 23 s');
    expect(progressLine('report', undefined, undefined, 'done', 4_500)).toBe('report: working, 4 s');
  });
});

describe('cliProgress', () => {
  const io = (terminal: boolean | undefined, errs: string[]): CliIo => ({ out: () => {}, err: (t) => void errs.push(t), setExitCode: () => {}, terminal });

  it('draws on the command\'s stderr when the CliIo says it is a terminal, and not otherwise', () => {
    for (const terminal of [true, false, undefined]) {
      const errs: string[] = [];
      const c = clock();
      const p = cliProgress(io(terminal, errs), 'report', { total: 4, now: c.now, intervalMs: 10 });
      c.advance(10);
      p.update(2);
      p.finish();
      expect(errs.length > 0, String(terminal)).toBe(terminal === true);
    }
  });
});

describe('samples/generate-batch.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rescued-gen-'));
  const capture = (isTTY: boolean) => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: { write: (t: string) => out.push(t) }, stderr: { isTTY, write: (t: string) => err.push(t) }, progressIntervalMs: 0 } };
  };

  it('--help answers as a process: exit 0, the usage on stdout (it used to crash)', () => {
    const res = spawnSync(process.execPath, [join(import.meta.dirname, '../../../samples/generate-batch.ts'), '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(USAGE);
    expect(res.stderr).toBe('');
  });

  it('an unknown option or a missing --out is a usage error (exit 2) on stderr', async () => {
    const bad = capture(false);
    expect(await generateBatch(['--entry', '5'], bad.io)).toBe(2);
    expect(bad.err.join('')).toMatch(/Unknown option '--entry'[\s\S]*Usage:/);
    expect(await generateBatch(['--entries', '5'], bad.io)).toBe(2);
    expect(bad.out).toEqual([]);
  });

  it('shows progress on a terminal and is quiet when piped; the file is the same either way', async () => {
    const tty = capture(true);
    const piped = capture(false);
    const ttyFile = join(dir, 'tty.json');
    expect(await generateBatch(['--entries', '50', '--out', ttyFile], tty.io)).toBe(0);
    expect(await generateBatch(['--entries', '50', '--out', join(dir, 'piped.json')], piped.io)).toBe(0);
    expect(piped.err).toEqual([]);
    expect(piped.out).toEqual([]);
    expect(tty.out).toEqual([]);
    expect(tty.err.join('')).toContain(`\r\x1b[2Kwriting ${ttyFile}: 25 of 50 entries (50%), `);
    expect(tty.err.at(-1)).toBe('\r\x1b[2K');
    expect((JSON.parse(readFileSync(ttyFile, 'utf8')) as { requests: unknown[] }).requests).toHaveLength(50);
    expect(readFileSync(join(dir, 'piped.json'), 'utf8').length).toBeGreaterThan(50 * 1000);
    rmSync(dir, { recursive: true, force: true });
  });
});
