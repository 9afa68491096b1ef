import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.ts';
import { shutdownHandler } from '../../src/daemon.ts';
import { createLogger } from '../../src/log.ts';

const log = createLogger({ level: 'silent' });

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('shutdown policy', () => {
  it('drains on the first signal and exits 0 when the stages have stopped', async () => {
    const codes: number[] = [];
    const stopped = deferred();
    let stops = 0;
    const onSignal = shutdownHandler({ stop: () => (stops++, stopped.promise), drainTimeoutMs: 10_000, log, exit: (c) => codes.push(c) });
    onSignal('SIGTERM');
    expect(stops).toBe(1);
    expect(codes).toEqual([]);
    stopped.resolve();
    await stopped.promise;
    await Promise.resolve();
    expect(codes).toEqual([0]);
  });

  it('forces exit 1 on a second signal while draining, without stopping twice', () => {
    const codes: number[] = [];
    let stops = 0;
    const onSignal = shutdownHandler({ stop: () => (stops++, new Promise(() => {})), drainTimeoutMs: 10_000, log, exit: (c) => codes.push(c) });
    onSignal('SIGTERM');
    onSignal('SIGINT');
    expect(stops).toBe(1);
    expect(codes).toEqual([1]);
  });

  it('forces exit 1 when the drain outlasts drainTimeoutMs', async () => {
    const codes: number[] = [];
    const onSignal = shutdownHandler({ stop: () => new Promise(() => {}), drainTimeoutMs: 20, log, exit: (c) => codes.push(c) });
    onSignal('SIGTERM');
    await waitFor(() => codes.length > 0, { what: 'the forced exit' });
    expect(codes).toEqual([1]);
  });
});
