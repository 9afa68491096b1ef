// Folders under the data folder that more than one stage names: intake writes the archive
// and the quarantine, the SFTP stage counts a merchant's archive in its storage quota.
import { join } from 'node:path';

/** Ingested batch files, per merchant (`<mid>/<day>/`), outside every chroot. */
export const archiveDir = (dataDir: string) => join(dataDir, 'archive');

/** Batch files intake could not store, redacted, per merchant, for the operator. */
export const quarantineDir = (dataDir: string) => join(dataDir, 'quarantine');
