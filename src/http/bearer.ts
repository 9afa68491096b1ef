// RFC 6750 bearer authentication for the side-port's merchant routes. Every route that acts
// for a merchant adds `preHandler: requireMerchant` and reads `request.merchant`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenClaims, TokenService } from '../auth/tokens.ts';
import { RescuedError } from '../errors.ts';
import { sendError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: TokenClaims;
  }
}

/** The OpenAPI security requirement of every route behind requireMerchant. */
export const BEARER = [{ bearerAuth: [] }];

const REALM = 'rescued';

export function bearerToken(header: string | undefined): string | undefined {
  const m = header && /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export function requireMerchantWith(tokens: TokenService) {
  return async function requireMerchant(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) {
      // RFC 6750 §3.1: no error code when the request carried no credentials at all.
      const challenge = request.headers.authorization ? `Bearer realm="${REALM}", error="invalid_request"` : `Bearer realm="${REALM}"`;
      return sendError(reply.header('www-authenticate', challenge), new RescuedError('ERR_AUTH_TOKEN_MISSING'));
    }
    try {
      request.merchant = await tokens.verify(token);
    } catch (err) {
      if (!(err instanceof RescuedError)) throw err;
      const description = err.message.replace(/"/g, "'");
      reply.header('www-authenticate', `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`);
      return sendError(reply, err);
    }
  };
}
