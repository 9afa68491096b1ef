// The ingest starts of batch files (schema.ts, intakeStarts): one row per file whose ingest
// began in some process and has not ended there.
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { intakeStarts } from '../schema.ts';

export interface FileIdentity {
  merchantId: string;
  fileName: string;
  fileBytes: number;
  fileModifiedAt: Date;
}

/**
 * Counts one more start of the file and answers how many there have been. Another file under
 * the same name (its size or modification time differ) starts again from one.
 */
export async function recordIntakeStart(db: Db, f: FileIdentity): Promise<number> {
  const [row] = await db
    .insert(intakeStarts)
    .values({ ...f, starts: 1 })
    .onConflictDoUpdate({
      target: [intakeStarts.merchantId, intakeStarts.fileName],
      set: {
        starts: sql`case when ${intakeStarts.fileBytes} = excluded.file_bytes and ${intakeStarts.fileModifiedAt} = excluded.file_modified_at then ${intakeStarts.starts} + 1 else 1 end`,
        fileBytes: sql`excluded.file_bytes`,
        fileModifiedAt: sql`excluded.file_modified_at`,
      },
    })
    .returning({ starts: intakeStarts.starts });
  return row!.starts;
}

const ofFile = (merchantId: string, fileName: string) => and(eq(intakeStarts.merchantId, merchantId), eq(intakeStarts.fileName, fileName));

/** This process's start of the file ended without an outcome for it (a retry, a shutdown, another replica's file). */
export async function endIntakeStart(db: Db, merchantId: string, fileName: string): Promise<void> {
  await db.update(intakeStarts).set({ starts: sql`${intakeStarts.starts} - 1` }).where(ofFile(merchantId, fileName));
  await db.delete(intakeStarts).where(and(ofFile(merchantId, fileName), lte(intakeStarts.starts, 0)));
}

/** The file has its outcome (ingested, rejected, quarantined): nothing more to count. */
export async function clearIntakeStarts(db: Db, merchantId: string, fileName: string): Promise<void> {
  await db.delete(intakeStarts).where(ofFile(merchantId, fileName));
}
