// The sign-in form: the operator token in a password field, posted to /console/login, which
// answers with the session cookie. Failures are counted per source address, as the token
// endpoint does, so a guessable token set by hand still costs a window per few tries.
import type { FastifyInstance } from 'fastify';
import { createFailureWindow } from '../../failure-window.ts';
import type { Logger } from '../../log.ts';
import { html, page } from './html.ts';
import { clearSessionCookie, isOperatorToken, setSessionCookie, type SessionSettings } from './session.ts';

const FAILURES_PER_MINUTE = 10;

function loginPage(message?: string): string {
  return page({
    title: 'Sign in',
    page: 'login',
    body: html`<h1>Sign in</h1>
${message ? html`<p class="error" role="alert">${message}</p>` : ''}
<form class="login" method="post" action="/console/login">
<label>Operator token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button>Sign in</button>
</form>
<p class="note">The operator token is not a merchant's API secret. In sandbox it is in <code>&lt;dataDir&gt;/console-token</code>; in production, its SHA-256 is <code>console.operatorTokenSha256</code>.</p>`,
  });
}

export function loginRoutes(app: FastifyInstance, s: SessionSettings, log: Logger): void {
  const failures = createFailureWindow({ windowMs: 60_000, keep: FAILURES_PER_MINUTE, maxKeys: 10_000 });

  app.get('/login', async (_request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(loginPage()));

  app.post<{ Body: { token?: unknown } | undefined }>('/login', async (request, reply) => {
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (failures.recent(request.ip).length >= FAILURES_PER_MINUTE) return reply.code(429).header('retry-after', '60').send(loginPage('Too many failed sign-ins from this address; wait a minute.'));
    const token = typeof request.body?.token === 'string' ? request.body.token.trim() : undefined;
    if (!isOperatorToken(s.credential, token)) {
      failures.record(request.ip);
      log.warn({ remoteAddress: request.ip }, 'console sign-in refused');
      return reply.code(401).send(loginPage('That is not the operator token.'));
    }
    log.info({ remoteAddress: request.ip }, 'console sign-in');
    return setSessionCookie(s, request, reply).code(303).header('location', '/console').send('');
  });

  app.post('/logout', async (request, reply) => clearSessionCookie(request, reply).code(303).header('location', '/console/login').send(''));
}
