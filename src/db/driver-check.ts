// The install mends two defects of postgres-js 3.4.9 that a connection lost inside a
// transaction reaches (.config/patch-postgres.mjs, docs/development.md): unmended, such a loss
// can stop the daemon or run a transaction's remaining statements outside it. An install made
// with `--ignore-scripts` skips the mend, so the server path checks for it before connecting.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = '/* rescued: mended */';

/** Throws, saying how to mend it, when the postgres-js this process loads (or the one in `dir`) was not mended. */
export function assertDriverMended(dir = dirname(fileURLToPath(import.meta.resolve('postgres')))): void {
  const unmended = ['index.js', 'connection.js'].filter((f) => !readFileSync(join(dir, f), 'utf8').includes(MARK));
  if (unmended.length === 0) return;
  throw new Error(`the postgres driver in ${dir} is not mended (${unmended.join(', ')}): the install skipped its postinstall step; run \`node .config/patch-postgres.mjs\` (or \`npm ci\` without --ignore-scripts)`);
}
