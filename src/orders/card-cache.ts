// Card look-ups at evaluate, remembered briefly per process. A token stands for one card
// number for ever, and evaluate reads only what follows from the number (BIN, last four,
// brand, the sandbox test card); a new expiry or holder name does not matter here. So a hit
// saves the vault's round trips (two in sandbox mode: the row, then the number for the test
// card) without ever answering something stale. Full card numbers are never cached.
import { carriesFullNumber, type EdgePaymentMethod, type Vault } from '../vault/service.ts';

type Edge = Awaited<ReturnType<Vault['tokenizeAtEdge']>>;
type Known = Pick<Edge, 'card' | 'testCard'>;

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export function cachedEdge(vault: Pick<Vault, 'tokenizeAtEdge'>): Pick<Vault, 'tokenizeAtEdge'> {
  const known = new Map<string, { value: Known; until: number }>();
  async function tokenizeAtEdge<T extends EdgePaymentMethod>(merchantId: string, pm: T) {
    if (carriesFullNumber(pm)) return vault.tokenizeAtEdge(merchantId, pm);
    const key = `${merchantId}:${pm.cardNumber}`;
    const hit = known.get(key);
    const now = Date.now();
    if (hit && hit.until > now) return { ...hit.value, paymentMethod: { ...pm, token: true as const } };
    const edge = await vault.tokenizeAtEdge(merchantId, pm);
    // Oldest first out: a Map iterates in insertion order.
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value!);
    known.delete(key);
    known.set(key, { value: { card: edge.card, testCard: edge.testCard }, until: now + TTL_MS });
    return edge;
  }
  return { tokenizeAtEdge };
}
