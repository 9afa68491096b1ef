// Bounds every parsed request body meets before any route code runs: nesting no deeper than
// MAX_DEPTH and no NUL character in any key or string. A 100,000-deep array made the request
// hash (JSON.stringify) overflow the stack, and a NUL reached PostgreSQL, which refuses it in
// text: both were 500s. The walk is iterative, so the check itself cannot overflow.
// JSON must be UTF-8 (RFC 8259 §8.1): fastify's own parser decoded invalid bytes to U+FFFD,
// so an orderId sent in Latin-1 was stored altered instead of refused. And a body is JSON or a
// form, nothing else: fastify's built-in text/plain parser handed routes a bare string.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RescuedError } from '../errors.ts';

/** Levels of objects and arrays a body may nest; the deepest the request model has is 4. */
export const MAX_DEPTH = 32;

function refuse(field: string, message: string): RescuedError {
  return new RescuedError('ERR_HTTP_BODY_INVALID', `The request body is not acceptable: ${field} ${message}.`, [{ field, code: 'ERR_HTTP_BODY_INVALID', message }]);
}

const NUL = '\u0000';

export function checkBodyBounds(body: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) throw refuse(path || '(body)', 'contains a NUL character');
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) throw refuse(path || '(body)', `nests deeper than ${MAX_DEPTH} levels`);
    for (const [k, v] of Object.entries(value)) {
      const at = Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      if (k.includes(NUL)) throw refuse(at.replaceAll(NUL, '\\0'), 'has a NUL character in its name');
      stack.push({ value: v, path: at, depth: depth + 1 });
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** fastify's JSON parser (prototype keys refused) on text first checked to be UTF-8. */
function strictJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(new RescuedError('ERR_HTTP_BODY_INVALID', 'The request body is not valid UTF-8; JSON must be sent in UTF-8.'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

export function bodyBounds(app: FastifyInstance): void {
  strictJson(app);
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined) checkBodyBounds(request.body);
  });
}
