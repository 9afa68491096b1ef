// The sandbox's token → test card look-up, remembered: a token always names the same card, so
// the vault read and the decryption are paid once per token, not once per call, and the
// tokens a group of calls has not seen yet are read together. The memory is bounded (the
// oldest entries go first); an unknown token is not remembered, so a card tokenized later is
// found.
import type { Vault } from '../vault/service.ts';
import type { TestCard, TestCardList } from '../vault/test-cards.ts';

export type CardVault = Pick<Vault, 'reveal'> & Partial<Pick<Vault, 'revealMany'>>;

export interface CardRef {
  merchantId: string;
  cardToken: string;
}

const keyOf = (r: CardRef) => `${r.merchantId}\u0000${r.cardToken}`;

/** Resolves references to test cards; `undefined`: not a test card, or not a token of that merchant. */
export function testCardResolver(vault: CardVault, testCards: TestCardList, maxEntries = 50_000) {
  // null: a card of the vault that is not a test card.
  const known = new Map<string, TestCard | null>();

  function remember(key: string, card: TestCard | null): void {
    if (known.size >= maxEntries) known.delete(known.keys().next().value!);
    known.set(key, card);
  }

  async function readMerchant(merchantId: string, tokens: string[]): Promise<void> {
    if (vault.revealMany) {
      for (const [token, card] of await vault.revealMany(merchantId, tokens)) remember(keyOf({ merchantId, cardToken: token }), testCards.find(card.pan) ?? null);
      return;
    }
    for (const token of tokens) {
      const card = await vault.reveal(merchantId, token);
      if (card) remember(keyOf({ merchantId, cardToken: token }), testCards.find(card.pan) ?? null);
    }
  }

  return async function resolve(refs: CardRef[]): Promise<Array<TestCard | undefined>> {
    const missing = new Map<string, Set<string>>();
    for (const r of refs) {
      if (!known.has(keyOf(r))) missing.set(r.merchantId, (missing.get(r.merchantId) ?? new Set()).add(r.cardToken));
    }
    for (const [merchantId, tokens] of missing) await readMerchant(merchantId, [...tokens]);
    return refs.map((r) => known.get(keyOf(r)) ?? undefined);
  };
}
