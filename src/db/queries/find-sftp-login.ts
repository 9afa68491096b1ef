import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, sftpAllowedCidrs, sftpKeys, sftpUsers } from '../schema.ts';

/** What the SFTP server needs to decide a login: the user's merchant, keys and allowed ranges. */
export interface SftpLogin {
  merchantId: string;
  mid: string;
  username: string;
  active: boolean;
  /** algorithm and base64 wire blob of each registered public key. */
  keys: { algorithm: string; publicKey: string }[];
  /** Normalised CIDR ranges ("203.0.113.7/32"). */
  cidrs: string[];
}

export async function findSftpLogin(db: Db, username: string): Promise<SftpLogin | undefined> {
  const [user] = await db
    .select({ id: sftpUsers.id, username: sftpUsers.username, merchantId: merchants.id, mid: merchants.mid, status: merchants.status })
    .from(sftpUsers)
    .innerJoin(merchants, eq(merchants.id, sftpUsers.merchantId))
    .where(eq(sftpUsers.username, username))
    .limit(1);
  if (!user) return undefined;
  const keys = await db.select({ algorithm: sftpKeys.algorithm, publicKey: sftpKeys.publicKey }).from(sftpKeys).where(eq(sftpKeys.sftpUserId, user.id));
  const cidrs = await db.select({ cidr: sftpAllowedCidrs.cidr }).from(sftpAllowedCidrs).where(eq(sftpAllowedCidrs.sftpUserId, user.id));
  return { merchantId: user.merchantId, mid: user.mid, username: user.username, active: user.status === 'active', keys, cidrs: cidrs.map((c) => c.cidr) };
}
