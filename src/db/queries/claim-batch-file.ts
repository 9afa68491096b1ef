// With several replicas sharing the SFTP data root, every replica's watcher sees the same new
// file. The replica whose transaction gets this lock ingests it; the others leave it alone.
// The lock is transaction-scoped, so it is released by the commit (or a crash) of that file.
import { sql } from 'drizzle-orm';
import type { Transaction as Tx } from '../client.ts';
import { rowsOf } from './raw-rows.ts';


/** First key of the two-int advisory lock space used for batch files ("in" in ASCII). */
const INTAKE_LOCK_CLASS = 0x696e;

export async function claimBatchFile(tx: Tx, merchantId: string, fileName: string): Promise<boolean> {
  const result = await tx.execute(sql`select pg_try_advisory_xact_lock(${INTAKE_LOCK_CLASS}::int, hashtext(${`${merchantId}/${fileName}`})) as locked`);
  return rowsOf(result)[0]?.locked === true;
}
