// `rescued vault rotate`: re-encrypts every sealed value not yet under the active vault key
// (cards, the webhook signing secrets of webhook_endpoints and the credentials of processor
// accounts) in pages, one transaction
// per page. It is idempotent: values already under the active key are left alone, so a
// second run, or a run after an interruption, only does what is left. A value that cannot
// be opened (its key is no longer in the ring, or it was tampered with) is counted as
// failed and passed over; the old key must stay listed until a run reports none.
import type { Db } from '../db/client.ts';
import { cardKeyIds, cardsUnderKey, resealCards, resealWebhookSecrets, webhookSecretsPage, type Resealed, type ResealedWebhook, type SealedWebhookSecrets } from '../db/queries/reseal.ts';
import { accountAad, processorAccountsPage, resealProcessorAccounts } from '../db/queries/processor-accounts.ts';
import { open, seal, sealedKeyId, webhookSecretAad, type KeyRing } from './cipher.ts';
import { cardAad } from './sealed-card.ts';

export interface RotateCounts {
  /** Re-encrypted under the active key by this run. */
  rotated: number;
  /** Could not be opened with the key ring; left as they were. */
  failed: number;
}

export interface RotateReport {
  activeKeyId: string;
  cards: RotateCounts;
  webhookSecrets: RotateCounts;
  processorCredentials: RotateCounts;
}

export interface RotateOptions {
  batchSize?: number;
  /** Called after each page, for progress output. */
  onBatch?: (what: 'cards' | 'webhookSecrets' | 'processorCredentials', counts: RotateCounts) => void;
}

function reseal(ring: KeyRing, sealed: string, aad: string): string | undefined {
  try {
    return seal(ring, open(ring, sealed, aad), aad);
  } catch {
    return undefined;
  }
}

// One old key at a time, its rows in id order through the (key_id, id) index, so a run
// after a complete one reads nothing but a few index entries.
async function rotateCards(db: Db, ring: KeyRing, batchSize: number, onBatch: RotateOptions['onBatch']): Promise<RotateCounts> {
  const counts: RotateCounts = { rotated: 0, failed: 0 };
  for (const keyId of (await cardKeyIds(db)).filter((k) => k !== ring.activeKeyId)) {
    for (let after: string | undefined; ; ) {
      const page = await cardsUnderKey(db, keyId, after, batchSize);
      if (page.length === 0) break;
      const updates: Resealed[] = [];
      for (const row of page) {
        const sealed = reseal(ring, row.sealed, cardAad(row.merchantId, row.token));
        if (sealed) updates.push({ id: row.id, oldSealed: row.sealed, sealed, keyId: ring.activeKeyId });
        else counts.failed++;
      }
      counts.rotated += await resealCards(db, updates);
      after = page[page.length - 1]!.id;
      onBatch?.('cards', counts);
    }
  }
  return counts;
}

/** The new values of an endpoint's two secrets, or undefined when one does not open. */
function resealEndpoint(ring: KeyRing, row: SealedWebhookSecrets): ResealedWebhook | undefined {
  const aad = webhookSecretAad(row.merchantId);
  const secretSealed = sealedKeyId(row.secretSealed) === ring.activeKeyId ? row.secretSealed : reseal(ring, row.secretSealed, aad);
  const prev = row.previousSecretSealed;
  const previousSecretSealed = prev === null || sealedKeyId(prev) === ring.activeKeyId ? prev : reseal(ring, prev, aad);
  if (secretSealed === undefined || previousSecretSealed === undefined) return undefined;
  return { row, secretSealed, previousSecretSealed };
}

async function rotateWebhookSecrets(db: Db, ring: KeyRing, batchSize: number, onBatch: RotateOptions['onBatch']): Promise<RotateCounts> {
  const counts: RotateCounts = { rotated: 0, failed: 0 };
  const current = (s: string | null) => s === null || sealedKeyId(s) === ring.activeKeyId;
  for (let after: string | undefined; ; ) {
    const page = await webhookSecretsPage(db, after, batchSize);
    if (page.length === 0) return counts;
    const updates: ResealedWebhook[] = [];
    for (const row of page.filter((r) => !current(r.secretSealed) || !current(r.previousSecretSealed))) {
      const update = resealEndpoint(ring, row);
      if (update) updates.push(update);
      else counts.failed++;
    }
    counts.rotated += await resealWebhookSecrets(db, updates);
    after = page[page.length - 1]!.id;
    onBatch?.('webhookSecrets', counts);
  }
}

async function rotateProcessorCredentials(db: Db, ring: KeyRing, batchSize: number, onBatch: RotateOptions['onBatch']): Promise<RotateCounts> {
  const counts: RotateCounts = { rotated: 0, failed: 0 };
  for (let after: string | undefined; ; ) {
    const page = await processorAccountsPage(db, after, batchSize);
    if (page.length === 0) return counts;
    const updates: { id: string; oldSealed: string; sealed: string }[] = [];
    for (const row of page.filter((r) => sealedKeyId(r.credentialsSealed) !== ring.activeKeyId)) {
      const sealed = reseal(ring, row.credentialsSealed, accountAad(row.id));
      if (sealed) updates.push({ id: row.id, oldSealed: row.credentialsSealed, sealed });
      else counts.failed++;
    }
    counts.rotated += await resealProcessorAccounts(db, updates);
    after = page[page.length - 1]!.id;
    onBatch?.('processorCredentials', counts);
  }
}

export async function rotateVault(db: Db, ring: KeyRing, opts: RotateOptions = {}): Promise<RotateReport> {
  const batchSize = opts.batchSize ?? 500;
  const cards = await rotateCards(db, ring, batchSize, opts.onBatch);
  const webhookSecrets = await rotateWebhookSecrets(db, ring, batchSize, opts.onBatch);
  const processorCredentials = await rotateProcessorCredentials(db, ring, batchSize, opts.onBatch);
  return { activeKeyId: ring.activeKeyId, cards, webhookSecrets, processorCredentials };
}
