// Merchant onboarding and the operations behind the `merchant` commands. Credentials are
// generated here, returned once to the caller that prints them, and stored only as digests
// (API secret, tokenization key) or sealed with the vault key ring (webhook secret).
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { createMerchant } from '../db/queries/create-merchant.ts';
import { findMerchantByMid, merchantDetails, type MerchantRow } from '../db/queries/find-merchant.ts';
import { addSftpCidr, addSftpKey, disableMerchant, replaceApiClient, rotateWebhookSecret, setWebhookUrl } from '../db/queries/update-merchant.ts';
import { listMerchants } from '../db/queries/list-merchants.ts';
import { setAwaitUpdatedCard } from '../db/queries/card-update-setting.ts';
import { setMerchantSettings, type MerchantSettings } from '../db/queries/merchant-settings.ts';
import { rotateTokenizationKey, type RevokedKey } from '../db/queries/rotate-tokenization-key.ts';
import { digest, newClientId, newSecret, newWebhookSecret } from '../auth/secrets.ts';
import { seal, webhookSecretAad, type KeyRing } from '../vault/cipher.ts';
import { RescuedError } from '../errors.ts';
import { parsePublicKey } from './ssh-key.ts';
import { normaliseCidr } from './cidr.ts';
import { checkWebhookUrl } from '../webhooks/url-safety.ts';
import { parseDurationMs } from '../duration.ts';

/** How long the previous webhook secret keeps signing after a rotation. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The longest an old tokenization key may keep working after a rotation: long enough to
 * redeploy every checkout page, short enough that a rotation after a leak still ends the
 * leaked key (the webhook secret's fixed grace is 24 h).
 */
export const MAX_TOKENIZATION_KEY_GRACE_MS = 30 * 24 * 60 * 60 * 1000;

/** `--keep-old-for`: a duration (`0s`, `90m`, `24h`, `7d`) up to MAX_TOKENIZATION_KEY_GRACE_MS; absent, no grace. */
export function keyGraceMs(text: string | undefined): number {
  if (text === undefined) return 0;
  const ms = parseDurationMs(text);
  if (ms === undefined || ms > MAX_TOKENIZATION_KEY_GRACE_MS) {
    throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', `--keep-old-for "${text.slice(0, 40)}" must be a duration such as 90m, 24h or 7d, at most 30d.`);
  }
  return ms;
}

export interface MerchantCredentials {
  mid: string;
  siteId: string;
  clientId: string;
  clientSecret: string;
  tokenizationKey: string;
  webhookSecret: string;
  sftpUsername: string;
}

export interface MerchantServiceDeps {
  db: Db;
  vault: KeyRing;
  mode: 'sandbox' | 'production';
}

function sftpUsername(name: string, mid: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24);
  return `${slug || 'merchant'}-${mid.slice(0, 8)}`;
}

export function createMerchantService(deps: MerchantServiceDeps) {
  const { db, vault } = deps;

  async function byMid(mid: string): Promise<MerchantRow> {
    const merchant = /^[0-9a-f-]{36}$/i.test(mid) ? await findMerchantByMid(db, mid) : undefined;
    if (!merchant) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${mid}.`);
    return merchant;
  }

  return {
    byMid,

    async add(input: { name: string; siteUrl?: string | undefined }): Promise<MerchantCredentials> {
      const name = input.name.trim();
      if (!name) throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', 'A merchant needs a name.');
      const creds: MerchantCredentials = {
        mid: randomUUID(),
        siteId: randomUUID(),
        clientId: newClientId(),
        clientSecret: newSecret('rcs'),
        tokenizationKey: newSecret('rtk'),
        webhookSecret: newWebhookSecret(),
        sftpUsername: '',
      };
      creds.sftpUsername = sftpUsername(name, creds.mid);
      await createMerchant(db, {
        mid: creds.mid,
        name,
        siteId: creds.siteId,
        siteUrl: input.siteUrl ?? null,
        clientId: creds.clientId,
        clientSecretHash: digest(creds.clientSecret),
        tokenizationKeyHash: digest(creds.tokenizationKey),
        webhookSecretSealed: (merchantId) => seal(vault, creds.webhookSecret, webhookSecretAad(merchantId)),
        sftpUsername: creds.sftpUsername,
      });
      return creds;
    },

    list: () => listMerchants(db),

    async show(mid: string) {
      const m = await byMid(mid);
      const settings: MerchantSettings = { cascadeOtherCards: m.cascadeOtherCards };
      return { mid: m.mid, name: m.name, status: m.status, createdAt: m.createdAt, disabledAt: m.disabledAt, settings, ...(await merchantDetails(db, m.id)) };
    },

    /** Changes the merchant's rescue options (`merchant set`); answers all of them as they now are. */
    async setSettings(mid: string, settings: Partial<MerchantSettings>): Promise<MerchantSettings> {
      return setMerchantSettings(db, (await byMid(mid)).id, settings);
    },

    async disable(mid: string): Promise<void> {
      await disableMerchant(db, (await byMid(mid)).id);
    },

    async addKey(mid: string, keyText: string) {
      const key = parsePublicKey(keyText);
      const added = await addSftpKey(db, (await byMid(mid)).id, key);
      return { ...key, added };
    },

    async allowIp(mid: string, cidrText: string) {
      const cidr = normaliseCidr(cidrText);
      return { cidr, added: await addSftpCidr(db, (await byMid(mid)).id, cidr) };
    },

    /** on/off: the merchant's own card-update setting; default: the configuration's engine.awaitUpdatedCard. */
    async setCardUpdates(mid: string, value: 'on' | 'off' | 'default'): Promise<void> {
      const m = await byMid(mid);
      await setAwaitUpdatedCard(db, m.id, value === 'default' ? null : value === 'on');
    },

    async setWebhook(mid: string, urlText: string): Promise<string> {
      const m = await byMid(mid);
      // Refused early with a clear error; every delivery checks the resolved address again.
      const url = (await checkWebhookUrl(urlText, deps.mode)).toString();
      await setWebhookUrl(db, m.id, url);
      return url;
    },

    async rotateWebhookSecret(mid: string, now = new Date()): Promise<{ webhookSecret: string; previousValidUntil: Date }> {
      const m = await byMid(mid);
      const webhookSecret = newWebhookSecret();
      const previousValidUntil = new Date(now.getTime() + WEBHOOK_SECRET_GRACE_MS);
      await rotateWebhookSecret(db, m.id, seal(vault, webhookSecret, webhookSecretAad(m.id)), previousValidUntil);
      return { webhookSecret, previousValidUntil };
    },

    /**
     * A new tokenization key, returned once; the merchant's other live keys stop working after
     * `keepOldForMs` (0: at once). A running daemon refuses them within its key cache (5 s).
     */
    async rotateTokenizationKey(mid: string, keepOldForMs = 0): Promise<{ tokenizationKey: string; revoked: RevokedKey[] }> {
      const m = await byMid(mid);
      const tokenizationKey = newSecret('rtk');
      const revoked = await rotateTokenizationKey(db, m.id, digest(tokenizationKey), keepOldForMs);
      return { tokenizationKey, revoked };
    },

    async rotateApiSecret(mid: string): Promise<{ clientId: string; clientSecret: string }> {
      const m = await byMid(mid);
      const clientId = newClientId();
      const clientSecret = newSecret('rcs');
      await replaceApiClient(db, m.id, clientId, digest(clientSecret));
      return { clientId, clientSecret };
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
