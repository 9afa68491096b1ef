// The install mends two defects of postgres-js 3.4.9 that a connection lost inside a
// transaction reaches (.config/patch-postgres.mjs, docs/development.md): unmended, such a loss
// can stop the daemon or run a transaction's remaining statements outside it. An install made
// with `--ignore-scripts` skips the mend, so the server path checks for it before connecting.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The mark .config/patch-postgres.mjs writes (that script runs on the Node running npm, which
// may not read TypeScript, so the string is written in both places).
const MARK = '/* rescued: mended */';

/** The installed package's folder (require resolves its CommonJS entry, cjs/src/index.js). */
const installed = () => join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

/** Throws, saying how to mend it, when the postgres-js this process loads (or the one in `pkg`) was not mended. */
export function assertDriverMended(pkg = installed()): void {
  // Both builds: ESM (src/, what Node imports) and CommonJS (cjs/src/).
  const files = ['src', 'cjs/src'].flatMap((d) => ['index.js', 'connection.js'].map((f) => join(d, f)));
  const unmended = files.filter((f) => !readFileSync(join(pkg, f), 'utf8').includes(MARK));
  if (unmended.length === 0) return;
  throw new Error(`the postgres driver in ${pkg} is not mended (${unmended.join(', ')}): the install skipped its postinstall step; run \`node .config/patch-postgres.mjs\` (or \`npm ci\` without --ignore-scripts)`);
}
