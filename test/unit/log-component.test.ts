// One `component` key per log line: the key a child binds, written once; a component named
// again on a logger that already has one is dropped (never thrown: logging must not break a path).
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';

function capture() {
  const lines: string[] = [];
  const log = createLogger({ level: 'trace', destination: { write: (s: string) => void lines.push(s) } });
  return { lines, log };
}

const count = (line: string, key: string) => line.split(`"${key}":`).length - 1;

describe('the component key', () => {
  it('appears once on the lines of a child, and of that child\'s own children', () => {
    const { lines, log } = capture();
    const intake = log.child({ component: 'intake' });
    intake.info('stage line');
    intake.child({ mid: 'm-1', file: 'a.json' }).warn({ entries: 3 }, 'file line');
    intake.child({ batchId: 'b-1' }).child({ orderSessionKey: 'k-1' }).error('deep line');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(count(line, 'component')).toBe(1);
      expect(JSON.parse(line).component).toBe('intake');
    }
  });

  it('may be named per call on a logger without one (the CLI\'s root logger)', () => {
    const { lines, log } = capture();
    log.info({ component: 'cli', mid: 'm-1' }, 'merchant created');
    expect(count(lines[0]!, 'component')).toBe(1);
  });

  it('a child naming a component under a logger that has one keeps the first, once', () => {
    const { lines, log } = capture();
    const intake = log.child({ component: 'intake' });
    intake.child({ component: 'intake', mid: 'm-1' }).info('file line');
    intake.child({ batchId: 'b-1' }).child({ component: 'engine' }).warn('deep line');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(count(line, 'component')).toBe(1);
      expect(JSON.parse(line).component).toBe('intake');
    }
    expect(JSON.parse(lines[0]!).mid).toBe('m-1');
  });

  it('a call passing component to a logger that has one writes the line with the logger\'s, once', () => {
    const { lines, log } = capture();
    const http = log.child({ component: 'http' });
    http.info({ component: 'http', status: 200 }, 'request done');
    http.child({ reqId: 'r-1' }).warn({ component: 'api' }, 'nested');
    expect(lines.map((l) => [count(l, 'component'), JSON.parse(l).component])).toEqual([[1, 'http'], [1, 'http']]);
    expect(JSON.parse(lines[0]!).status).toBe(200);
  });

  it('leaves calls without a component key alone, below the logger\'s level too', () => {
    const { lines, log } = capture();
    const quiet = createLogger({ level: 'warn', destination: { write: () => {} } }).child({ component: 'db' });
    expect(() => quiet.debug('below the level')).not.toThrow();
    log.child({ component: 'sftp' }).info({ component_count: 1, event: 'upload' }, 'no clash with a similar name');
    expect(count(lines[0]!, 'component')).toBe(1);
  });
});
