// The intake's view of the vault: a chunk of payment methods → vault tokens. Tokens are
// checked in one query per chunk; a full card number (token: false, PCI merchants only) is
// tokenized through the vault on the file's own transaction — on PGlite, the one connection
// is held by that transaction, and a query outside it would wait for ever.
import type { Db } from '../db/client.ts';
import type { FieldError } from '../errors.ts';
import { RescuedError } from '../errors.ts';
import type { PaymentMethod } from '../domain/index.ts';
import { findCardTokens } from '../db/queries/find-cards-by-tokens.ts';
import { carriesFullNumber, type Vault } from '../vault/service.ts';
import type { CardResolver } from './pass-two.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

const unknownToken = (): FieldError => ({
  field: 'paymentMethod.cardNumber',
  code: 'ERR_VAULT_TOKEN_UNKNOWN',
  message: 'paymentMethod.cardNumber is not a card token of this merchant (tokenize the card first).',
});

export function vaultCardResolver(vaultOn: (tx: Tx) => Vault): CardResolver {
  return {
    async resolve(tx, merchantId, methods) {
      const known = await findCardTokens(tx, merchantId, methods.filter((m) => !carriesFullNumber(m)).map((m) => m.cardNumber));
      const vault = methods.some(carriesFullNumber) ? vaultOn(tx) : undefined;
      const out: Array<{ token: string } | { errors: FieldError[] }> = [];
      for (const method of methods) out.push(await resolveOne(vault, known, merchantId, method));
      return out;
    },
  };
}

async function resolveOne(vault: Vault | undefined, known: Set<string>, merchantId: string, method: PaymentMethod): Promise<{ token: string } | { errors: FieldError[] }> {
  if (!carriesFullNumber(method)) return known.has(method.cardNumber) ? { token: method.cardNumber } : { errors: [unknownToken()] };
  try {
    const edge = await vault!.tokenizeAtEdge(merchantId, method);
    return { token: edge.paymentMethod.cardNumber };
  } catch (err) {
    if (err instanceof RescuedError) return { errors: err.errors.length ? err.errors : [{ field: 'paymentMethod.cardNumber', code: err.code, message: err.message }] };
    throw err;
  }
}
