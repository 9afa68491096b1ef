// The intake's view of the vault: a chunk of payment methods → vault tokens. Tokens are
// checked in one query per chunk; a full card number (token: false, PCI merchants only) is
// tokenized through the vault on the file's own transaction — on PGlite, the one connection
// is held by that transaction, and a query outside it would wait for ever. In sandbox mode
// each card's test card comes back too (for its payer-email rule): a token's test card is
// read once, decrypted in one query per chunk, and kept (a token never changes its card).
import type { Transaction as Tx } from '../db/client.ts';
import type { FieldError } from '../error-types.ts';
import { RescuedError } from '../errors.ts';
import type { PaymentMethod } from '../domain/index.ts';
import { findCardTokens } from '../db/queries/find-cards-by-tokens.ts';
import { carriesFullNumber, type Vault } from '../vault/service.ts';
import type { TestCard, TestCardList } from '../vault/test-cards.ts';
import type { CardResolver } from './types.ts';


const unknownToken = (): FieldError => ({
  field: 'paymentMethod.cardNumber',
  code: 'ERR_VAULT_TOKEN_UNKNOWN',
  message: 'paymentMethod.cardNumber is not a card token of this merchant (tokenize the card first).',
});

/** `testCards` only in sandbox mode. */
export function vaultCardResolver(vaultOn: (tx: Tx) => Vault, testCards?: TestCardList): CardResolver {
  const testCardOf = new Map<string, TestCard | null>();
  async function learnTestCards(tx: Tx, merchantId: string, tokens: Iterable<string>): Promise<void> {
    const unknown = [...new Set(tokens)].filter((t) => !testCardOf.has(t));
    if (!testCards || unknown.length === 0) return;
    if (testCardOf.size > 100_000) testCardOf.clear();
    const revealed = await vaultOn(tx).revealMany(merchantId, unknown);
    for (const token of unknown) testCardOf.set(token, testCards.find(revealed.get(token)?.pan ?? '') ?? null);
  }
  return {
    async resolve(tx, merchantId, methods) {
      const known = await findCardTokens(tx, merchantId, methods.filter((m) => !carriesFullNumber(m)).map((m) => m.cardNumber));
      await learnTestCards(tx, merchantId, known);
      const vault = methods.some(carriesFullNumber) ? vaultOn(tx) : undefined;
      const out: ResolvedCard[] = [];
      for (const method of methods) out.push(await resolveOne(vault, known, merchantId, method, testCardOf));
      return out;
    },
  };
}

type ResolvedCard = { token: string; testCard?: TestCard } | { errors: FieldError[] };

async function resolveOne(vault: Vault | undefined, known: Set<string>, merchantId: string, method: PaymentMethod, testCardOf: Map<string, TestCard | null>): Promise<ResolvedCard> {
  if (!carriesFullNumber(method)) {
    return known.has(method.cardNumber) ? { token: method.cardNumber, testCard: testCardOf.get(method.cardNumber) ?? undefined } : { errors: [unknownToken()] };
  }
  try {
    const edge = await vault!.tokenizeAtEdge(merchantId, method);
    return { token: edge.paymentMethod.cardNumber, testCard: edge.testCard };
  } catch (err) {
    if (err instanceof RescuedError) return { errors: err.errors.length ? err.errors : [{ field: 'paymentMethod.cardNumber', code: err.code, message: err.message }] };
    throw err;
  }
}
