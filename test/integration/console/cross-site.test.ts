// The console's sign-in and sign-out are taken from its own pages only: a cross-site Origin or
// Sec-Fetch-Site answers 403 ERR_CONSOLE_CROSS_SITE before anything happens, a same-origin one
// works, and the session cookie is SameSite=Strict. A real browser's cross-site form is in
// console.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { DB_KINDS } from '../../helpers/db.ts';
import { consoleFixture, type ConsoleFixture } from './fixture.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(DB_KINDS)('console cross-site requests on %s', (kind) => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await consoleFixture(kind);
  });
  afterAll(async () => f?.close());

  const login = (headers: Record<string, string>, token = f.operatorToken) =>
    f.app.inject({ method: 'POST', url: '/console/login', payload: `token=${encodeURIComponent(token)}`, headers: { ...FORM, ...headers } } as InjectOptions);
  const logout = (headers: Record<string, string>) => f.app.inject({ method: 'POST', url: '/console/logout', headers });
  const refusedCode = (body: string) => /data-code="([A-Z_]+)"/.exec(body)?.[1];

  it('refuses a sign-in from another site, by Origin or by Sec-Fetch-Site, and sets no cookie', async () => {
    const forged: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://localhost:8080' }, // the console's host name, another port
      { origin: 'null' },
      { origin: 'not an origin' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost' },
      { host: 'console.example', origin: 'https://console.example.evil.example' },
    ];
    for (const headers of forged) {
      const res = await login(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(refusedCode(res.body)).toBe('ERR_CONSOLE_CROSS_SITE');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('signs in from the console\'s own origin, with a SameSite=Strict, HttpOnly cookie under /console', async () => {
    const own: Record<string, string>[] = [
      { origin: 'http://localhost' }, // inject's Host is localhost:80: the default port is the same origin
      { host: 'console.example:8443', origin: 'https://CONSOLE.example:8443' },
      { 'sec-fetch-site': 'same-origin', origin: 'null' }, // the browser's own header decides
      { 'sec-fetch-site': 'none' },
      {}, // no browser page: curl
    ];
    for (const headers of own) {
      const res = await login(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(303);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^rescued_console=\d+\.[A-Za-z0-9_-]{43}; /);
      expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', expect.stringMatching(/^Max-Age=\d+$/), 'Path=/console', 'SameSite=Strict']);
    }
    expect((await login({ origin: 'http://localhost' }, 'rco_wrong')).statusCode).toBe(401);
  });

  it('refuses a cross-site sign-out, which leaves the session alone; a same-origin one clears it', async () => {
    const signedIn = String((await login({ origin: 'http://localhost' })).headers['set-cookie']).split(';', 1)[0]!;
    const forged = await logout({ cookie: signedIn, origin: 'https://evil.example' });
    expect(forged.statusCode).toBe(403);
    expect(refusedCode(forged.body)).toBe('ERR_CONSOLE_CROSS_SITE');
    expect(forged.headers['set-cookie']).toBeUndefined();
    expect((await f.app.inject({ url: '/console/api/report.json', headers: { cookie: signedIn } })).statusCode).toBe(200);

    const own = await logout({ cookie: signedIn, origin: 'http://localhost', 'sec-fetch-site': 'same-origin' });
    expect(own.statusCode).toBe(303);
    expect(own.headers.location).toBe('/console/login');
    expect(String(own.headers['set-cookie'])).toBe('rescued_console=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0');
  });

  it('leaves reading alone: a GET with a foreign Origin is answered, and pages send Referrer-Policy: same-origin', async () => {
    const page = await f.app.inject({ url: '/console/login', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });
});
