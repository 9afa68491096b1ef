// One log line per HTTP request, written once it is answered: method, URL (scrubbed of card
// numbers and credentials), status and milliseconds, under the http component named once.
// Fastify's own two lines (received, completed) are gone.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.ts';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';

const PAN = '4111111111111111';

describe.each(DB_KINDS)('the request log on %s', (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('writes one line per request with method, scrubbed url, status and ms', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    t = await testApp(kind, undefined, { log });
    lines.length = 0;
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/v1/orders/${PAN}?cvv=123&card=${PAN}` })).statusCode).toBe(401);
    const requests = lines.filter((l) => l.includes('"url"'));
    expect(requests).toHaveLength(2);
    for (const line of requests) {
      expect(line.split('"component":')).toHaveLength(2);
      expect(line).not.toContain(PAN);
      expect(line).not.toMatch(/cvv=123/);
    }
    const [health, order] = requests.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(health).toMatchObject({ component: 'http', msg: 'request', method: 'GET', url: '/healthz', status: 200 });
    expect(typeof health!.ms).toBe('number');
    expect(order).toMatchObject({ component: 'http', msg: 'request', method: 'GET', status: 401 });
    expect(lines.filter((l) => /incoming request|request completed/.test(l))).toEqual([]);
  });
});
