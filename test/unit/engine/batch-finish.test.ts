// The finisher that writes a batch's results file after its last order, between sweeps: a
// touch looks at once, touches during a look give one more look after the interval, a look
// that found the lock held elsewhere looks again by itself, and nothing looks after stop().
import { describe, expect, it } from 'vitest';
import { createBatchFinisher } from '../../../src/engine/batch-finish.ts';
import { createLogger, type Logger } from '../../../src/log.ts';

const log = createLogger({ level: 'silent' });

/** A finish() whose looks are counted and answered by the test, one at a time. */
function scripted() {
  const looks: Array<{ at: number; answer: (n: number | undefined) => void }> = [];
  let waiting: Array<() => void> = [];
  const finish = () => new Promise<number | undefined>((resolve) => {
    looks.push({ at: Date.now(), answer: resolve });
    for (const w of waiting.splice(0)) w();
  });
  /** Resolves once there have been n looks. */
  const lookNo = (n: number) => new Promise<void>((resolve) => {
    const check = () => (looks.length >= n ? resolve() : waiting.push(check));
    check();
  });
  return { looks, finish, lookNo, reset: () => (waiting = []) };
}

describe('batch finisher', () => {
  it('looks at once when touched, and once more after the interval for touches during a look', async () => {
    const s = scripted();
    const f = createBatchFinisher({ finish: s.finish, log, minIntervalMs: 50 });
    const touched = Date.now();
    f.touch();
    await s.lookNo(1);
    expect(s.looks[0]!.at - touched).toBeLessThan(40);
    f.touch();
    f.touch();
    s.looks[0]!.answer(0);
    await s.lookNo(2);
    expect(s.looks[1]!.at - s.looks[0]!.at).toBeGreaterThanOrEqual(45);
    s.looks[1]!.answer(1);
    await f.stop();
    expect(s.looks).toHaveLength(2);
  });

  it('looks again by itself when another instance held the lock', async () => {
    const s = scripted();
    const f = createBatchFinisher({ finish: s.finish, log, minIntervalMs: 10 });
    f.touch();
    await s.lookNo(1);
    s.looks[0]!.answer(undefined);
    await s.lookNo(2);
    s.looks[1]!.answer(1);
    await f.stop();
    expect(s.looks).toHaveLength(2);
  });

  it('does not look after stop, and stop waits for a look under way', async () => {
    const s = scripted();
    const f = createBatchFinisher({ finish: s.finish, log, minIntervalMs: 10 });
    f.touch();
    await s.lookNo(1);
    let stopped = false;
    const stopping = f.stop().then(() => (stopped = true));
    f.touch();
    await Promise.resolve();
    expect(stopped).toBe(false);
    s.looks[0]!.answer(undefined);
    await stopping;
    expect(s.looks).toHaveLength(1);
  });

  it('a failed look is logged and left to the periodic sweep', async () => {
    let calls = 0;
    let warned!: () => void;
    const warning = new Promise<void>((resolve) => (warned = resolve));
    const spy = { warn: () => warned() } as unknown as Logger;
    const f = createBatchFinisher({ finish: () => (calls++, Promise.reject(new Error('database down'))), log: spy, minIntervalMs: 1 });
    f.touch();
    await warning;
    await f.stop();
    expect(calls).toBe(1);
  });
});
