import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, sftpUsers } from '../schema.ts';

export interface SftpUserRow {
  merchantId: string;
  mid: string;
  username: string;
  active: boolean;
}

/** Every SFTP user with its merchant: the server creates their folders at start. */
export async function listSftpUsers(db: Db): Promise<SftpUserRow[]> {
  const rows = await db
    .select({ merchantId: merchants.id, mid: merchants.mid, username: sftpUsers.username, status: merchants.status })
    .from(sftpUsers)
    .innerJoin(merchants, eq(merchants.id, sftpUsers.merchantId));
  return rows.map(({ status, ...r }) => ({ ...r, active: status === 'active' }));
}
