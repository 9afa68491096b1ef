// POST /oauth2/token (also /v1/oauth2/token): OAuth 2.0 client credentials (RFC 6749 §4.4)
// and the {"appKey","appSecret"} form, answered in both spellings DESIGN.md §2 lists.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readClientCredentials } from '../../auth/client-credentials.ts';
import type { TokenClaims, TokenService } from '../../auth/tokens.ts';
import { ThrottledError, type FailureThrottle } from '../../auth/failure-throttle.ts';
import { RescuedError, type ErrorCode } from '../../errors.ts';
import { sendError } from '../errors.ts';

export interface OAuthTokenDeps {
  tokens: TokenService;
  authenticateClient: (clientId: string, clientSecret: string) => Promise<TokenClaims>;
  /** Limits failed authentications per (client id, source address) and per source address. */
  authThrottle: FailureThrottle;
}

/** RFC 6749 §5.2 error codes for the catalogue codes this route raises. */
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  ERR_AUTH_INVALID_CLIENT: 'invalid_client',
  ERR_AUTH_INVALID_REQUEST: 'invalid_request',
  ERR_AUTH_UNSUPPORTED_GRANT_TYPE: 'unsupported_grant_type',
  ERR_HTTP_BODY_INVALID: 'invalid_request',
  ERR_HTTP_UNSUPPORTED_MEDIA_TYPE: 'invalid_request',
  // RFC 6749 has no code for throttling; this one (§4.1.2.1) says "try again later".
  ERR_AUTH_TOO_MANY_FAILURES: 'temporarily_unavailable',
};

export function oauthTokenRoutes(app: FastifyInstance, deps: OAuthTokenDeps): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const creds = readClientCredentials(request.headers.authorization, request.body);
      deps.authThrottle.check('token', creds.clientId, request.ip);
      const claims = await deps.authenticateClient(creds.clientId, creds.clientSecret).catch((err: unknown) => {
        if (err instanceof RescuedError && err.code === 'ERR_AUTH_INVALID_CLIENT') deps.authThrottle.fail(creds.clientId, request.ip);
        throw err;
      });
      const issued = await deps.tokens.issue(claims);
      request.log.info({ clientId: claims.clientId, mid: claims.mid, method: creds.method }, 'access token issued');
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send({
        access_token: issued.token,
        token_type: 'Bearer',
        expires_in: issued.expiresInSeconds,
        accessToken: issued.token,
        expires: issued.expiresAtMs,
      });
    } catch (err) {
      if (!(err instanceof RescuedError) || !OAUTH_ERROR[err.code]) throw err;
      request.log.info({ code: err.code }, 'token request refused');
      if (err.code === 'ERR_AUTH_INVALID_CLIENT') reply.header('www-authenticate', 'Basic realm="rescued", charset="UTF-8"');
      if (err instanceof ThrottledError) reply.header('retry-after', String(err.retryAfterSeconds));
      return sendError(reply.header('pragma', 'no-cache'), err, { error: OAUTH_ERROR[err.code], error_description: err.message });
    }
  };
  app.post('/oauth2/token', handler);
  app.post('/v1/oauth2/token', handler);
}
