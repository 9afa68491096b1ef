// The small updates behind the `merchant` commands; each is one statement.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { apiClients, merchants, sftpAllowedCidrs, sftpKeys, sftpUsers, webhookEndpoints } from '../schema.ts';

export async function disableMerchant(db: Db, merchantId: string): Promise<void> {
  await db.update(merchants).set({ status: 'disabled', disabledAt: sql`now()` }).where(eq(merchants.id, merchantId));
}

async function sftpUserId(db: Db, merchantId: string): Promise<string> {
  const [row] = await db.select({ id: sftpUsers.id }).from(sftpUsers).where(eq(sftpUsers.merchantId, merchantId)).limit(1);
  return row!.id;
}

export interface SftpKeyRow {
  algorithm: string;
  publicKey: string;
  fingerprint: string;
  comment: string | null;
}

/** Returns false when the key was already registered. */
export async function addSftpKey(db: Db, merchantId: string, key: SftpKeyRow): Promise<boolean> {
  const rows = await db
    .insert(sftpKeys)
    .values({ sftpUserId: await sftpUserId(db, merchantId), ...key })
    .onConflictDoNothing()
    .returning({ id: sftpKeys.id });
  return rows.length > 0;
}

export async function addSftpCidr(db: Db, merchantId: string, cidr: string): Promise<boolean> {
  const rows = await db
    .insert(sftpAllowedCidrs)
    .values({ sftpUserId: await sftpUserId(db, merchantId), cidr })
    .onConflictDoNothing()
    .returning({ id: sftpAllowedCidrs.id });
  return rows.length > 0;
}

export async function setWebhookUrl(db: Db, merchantId: string, url: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ url, enabled: true, disabledReason: null, updatedAt: sql`now()` })
    .where(eq(webhookEndpoints.merchantId, merchantId));
}

/** The new secret signs from now on; the old one keeps signing beside it until `graceUntil`. */
export async function rotateWebhookSecret(db: Db, merchantId: string, newSealed: string, graceUntil: Date): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({
      previousSecretSealed: sql`${webhookEndpoints.secretSealed}`,
      previousSecretExpiresAt: graceUntil,
      secretSealed: newSealed,
      updatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.merchantId, merchantId));
}

/** Revokes every live API client of the merchant and creates a new one, atomically. */
export async function replaceApiClient(db: Db, merchantId: string, clientId: string, secretHash: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(apiClients).set({ revokedAt: sql`now()` }).where(and(eq(apiClients.merchantId, merchantId), isNull(apiClients.revokedAt)));
    await tx.insert(apiClients).values({ merchantId, clientId, secretHash });
  });
}
