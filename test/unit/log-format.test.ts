// The log's two formats: JSON lines when stdout is not a terminal (journald, a pipe, the tests
// reading the daemon's stdout) and one readable line per event on a terminal, or as
// log.format says. Both come out of the same redaction: no card number or secret in either.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { prettyLine, resolveLogFormat } from '../../src/log-format.ts';

const PAN = '4111111111111111';

function capture(format: 'json' | 'pretty') {
  const lines: string[] = [];
  const log = createLogger({ level: 'info', format, destination: { write: (s: string) => void lines.push(s) } });
  return { lines, log };
}

describe('log.format', () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['json', false, 'json'],
    ['pretty', false, 'pretty'],
    ['pretty', true, 'pretty'],
  ] as const)('%s with a terminal %s is %s', (format, isTTY, expected) => {
    expect(resolveLogFormat(format, isTTY)).toBe(expected);
  });
});

describe('the readable line', () => {
  it('is time, level, component, message, then the event\'s fields, on one line', () => {
    const { lines, log } = capture('pretty');
    log.child({ component: 'intake' }).child({ mid: 'm-1' }).warn({ file: 'batch one.json', entries: 3 }, 'file refused');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[intake\] file refused {2}mid=m-1 file="batch one\.json" entries=3\n$/);
    expect(lines[0]!.split('intake')).toHaveLength(2);
  });

  it('shows an error as its type, code and message, still one line', () => {
    const { lines, log } = capture('pretty');
    const err = Object.assign(new Error('connect refused\nat the gateway'), { code: 'ECONNREFUSED' });
    log.error({ err }, 'call failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('err="Error ECONNREFUSED: connect refused\\nat the gateway"');
    expect(lines[0]!.trimEnd()).not.toContain('\n');
  });

  it('redacts secrets and card numbers as the JSON line does', () => {
    for (const format of ['pretty', 'json'] as const) {
      const { lines, log } = capture(format);
      log.child({ component: 'http' }).info({ clientSecret: 's3cr3t-value', note: `card ${PAN}`, cvv: '123' }, `charged ${PAN}`);
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toContain(PAN);
      expect(lines[0]).not.toContain('s3cr3t-value');
      expect(lines[0]).not.toMatch(/\b123\b/);
      expect(lines[0]).toContain('411111');
    }
  });

  it('passes a line that is not JSON on unchanged', () => {
    expect(prettyLine('not json')).toBe('not json\n');
  });
});
