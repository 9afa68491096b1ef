// A sweep slower than its schedule: the ticks that come while it runs are skipped, said in
// the JSON log, and nothing is printed outside it (node-cron's own overlap guard writes a raw
// line to stderr on every skipped tick).
import { afterEach, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { scheduleExclusive } from '../../src/schedule.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

it('skips the ticks that come while a run is still going, logs them as JSON, prints nothing else; stop waits for the run', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const printed = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'info'), vi.spyOn(console, 'error'), vi.spyOn(console, 'log')];
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write(chunk: Buffer, _e, done) { lines.push(JSON.parse(chunk.toString())); done(); } }));
  let running = 0;
  let most = 0;
  let runs = 0;
  const finish: Array<() => void> = [];
  const schedule = scheduleExclusive('* * * * * *', { name: 'test-sweep', setting: 'test.cron' }, () => {
    runs++;
    most = Math.max(most, ++running);
    return new Promise<void>((resolve) => finish.push(() => (running--, resolve())));
  }, log);
  // Five ticks: the first starts a run that lasts through the other four.
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(1000);
  expect(runs).toBe(1);
  expect(lines.filter((l) => l.msg === 'tick skipped: the last run is still going' && l.schedule === 'test-sweep').length).toBeGreaterThanOrEqual(3);
  // Once it ends, the next tick runs again.
  finish.shift()!();
  await vi.advanceTimersByTimeAsync(1000);
  expect(runs).toBe(2);
  expect(most).toBe(1);
  // stop() resolves only after the run in progress ends.
  let stopped = false;
  const stopping = schedule.stop().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(10);
  expect(stopped).toBe(false);
  finish.shift()!();
  await stopping;
  expect(stopped).toBe(true);
  for (const spy of printed) expect(spy).not.toHaveBeenCalled();
});

it('refuses an expression that is not a cron schedule, naming the setting', () => {
  expect(() => scheduleExclusive('every minute', { name: 'x', setting: 'engine.sweepCron' }, async () => {}, pino({ level: 'silent' }))).toThrow('engine.sweepCron is not a valid cron expression: every minute');
});
