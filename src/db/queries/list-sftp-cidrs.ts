import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, sftpAllowedCidrs, sftpUsers } from '../schema.ts';

/** The allowed source ranges of every active merchant: a connection from outside all of them is refused at once. */
export async function listAllowedSftpCidrs(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ cidr: sftpAllowedCidrs.cidr })
    .from(sftpAllowedCidrs)
    .innerJoin(sftpUsers, eq(sftpUsers.id, sftpAllowedCidrs.sftpUserId))
    .innerJoin(merchants, eq(merchants.id, sftpUsers.merchantId))
    .where(eq(merchants.status, 'active'));
  return rows.map((r) => r.cidr);
}
