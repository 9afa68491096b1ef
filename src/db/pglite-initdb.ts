// Creates an embedded database cluster (PGlite's initdb) in a new folder, then exits: run as a
// child process by client.ts, so that the memory initdb touches goes with the process. Done in
// the daemon's own process, it stayed resident for good (about 75 MiB of malloc'd and
// WebAssembly pages that were never handed back: 269 MiB idle after a first start against 194
// after a restart; docs/performance.md, "Idle memory").
// `node src/db/pglite-initdb.ts <folder>`
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: pglite-initdb.ts <folder>\n');
  process.exit(2);
}
const client = await PGlite.create(dir);
await client.close();
