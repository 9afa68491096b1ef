// POST /v1/tokenize (also /tokenize): a card in, a token out, in the spec's shapes. The
// caller is identified by the query parameters `mid` and `environment` (the tokenization
// key), not by a bearer token. A card that fails a check is 422 with one entry per field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TokenizeRequestSchema, validateTokenize } from '../../domain/index.ts';
import type { TokenizationMerchant } from '../../auth/tokenization-key.ts';
import { ThrottledError, type FailureThrottle } from '../../auth/failure-throttle.ts';
import { RescuedError } from '../../errors.ts';
import type { CardInput } from '../../vault/card-checks.ts';
import type { Tokenized, Vault } from '../../vault/service.ts';

export interface TokenizeDeps {
  vault: Pick<Vault, 'tokenize' | 'linkPayer'>;
  authenticateTokenizationKey: (mid: string, key: string) => Promise<TokenizationMerchant>;
  /** Limits failed authentications per (mid, source address) and per source address. */
  authThrottle: FailureThrottle;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function cardInput(body: unknown): CardInput {
  const cc = obj(obj(obj(body).payment_method).credit_card);
  return { number: cc.number, month: cc.month, year: cc.year, cvv: cc.verification_value, firstName: cc.first_name, lastName: cc.last_name };
}

// "Tokenize response" of the spec. storage_state is "retained": the token does not expire.
// email is null except for the sandbox test card that requires a payer email: it names
// the email that evaluate and batch entries using this token must carry.
export function tokenizeResponse(t: Tokenized) {
  const c = t.card;
  return {
    transaction: {
      payment_method: {
        token: c.token,
        created_at: c.createdAt.toISOString(),
        updated_at: c.updatedAt.toISOString(),
        email: t.testCard?.requiresPayerEmail ?? null,
        data: null,
        storage_state: 'retained',
        test: c.test,
        metadata: null,
        last_four_digits: c.last4,
        first_six_digits: c.bin,
        month: c.month,
        year: c.year,
      },
    },
    success: true,
    errors: [],
    result: null,
    status: null,
    statusCode: null,
    customProperties: {},
  };
}

export function tokenizeRoutes(app: FastifyInstance, deps: TokenizeDeps): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = obj(request.query);
    let result: Tokenized;
    try {
      deps.authThrottle.check('tokenize', text(query.mid), request.ip);
      const merchant = await deps.authenticateTokenizationKey(text(query.mid), text(query.environment)).catch((err: unknown) => {
        if (err instanceof RescuedError && err.code === 'ERR_VAULT_INVALID_TOKENIZATION_KEY') deps.authThrottle.fail(text(query.mid), request.ip);
        throw err;
      });
      const schema = validateTokenize(request.body);
      result = await deps.vault.tokenize(merchant.merchantId, cardInput(request.body), undefined, schema.ok ? [] : schema.errors);
      // The card is one of this payer's from now on (the cascade's candidates, src/vault/payer-cards.ts).
      await deps.vault.linkPayer(merchant.merchantId, result.card.token, obj(obj(request.body).payer).id);
    } catch (err) {
      // Codes and field names only: the values may be a card number or a CVV.
      if (err instanceof ThrottledError) reply.header('retry-after', String(err.retryAfterSeconds));
      if (err instanceof RescuedError) request.log.info({ code: err.code, fields: err.errors.map((e) => `${e.field}:${e.code}`) }, 'tokenize refused');
      throw err;
    }
    request.log.info({ mid: text(query.mid), card: result.masked, created: result.created, test: result.card.test }, 'card tokenized');
    return reply.header('cache-control', 'no-store').send(tokenizeResponse(result));
  };
  // For the OpenAPI document only: the body is checked by the vault (app.ts turns route validation off).
  const schema = {
    summary: 'Tokenize a card (query: mid and environment, the tokenization key); payer.id stores it as one of that payer\'s cards',
    tags: ['vault'],
    body: TokenizeRequestSchema,
  };
  app.post('/v1/tokenize', { schema }, handler);
  app.post('/tokenize', { schema: { ...schema, hide: true } }, handler);
}
