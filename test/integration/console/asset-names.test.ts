// The console's asset route looked names up in a plain object: `__proto__`, `constructor`
// and the other members of Object.prototype were found there and crashed sendFile (500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { consoleFixture, type ConsoleFixture } from './fixture.ts';

describe.each(DB_KINDS)('console asset names on %s', (kind) => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await consoleFixture(kind);
  });
  afterAll(() => f.close());

  it('answers 404 for names of Object.prototype members, and still serves the assets', async () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty', 'toString']) {
      const res = await f.app.inject({ method: 'GET', url: `/console/assets/${name}` });
      expect(res.statusCode, name).toBe(404);
      expect(res.body, name).toContain('data-code="ERR_HTTP_NOT_FOUND"');
    }
    expect((await f.app.inject({ method: 'GET', url: '/console/assets/console.css' })).statusCode).toBe(200);
  });
});
