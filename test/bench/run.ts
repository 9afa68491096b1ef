// `npm run bench [-- name ...]`: runs every test/bench/*.bench.ts (or those whose name
// contains one of the arguments) in its own process, so one benchmark's heap and RSS never
// colour another's. Each benchmark prints its own baseline and ratio from the same run.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const res = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (res.status !== 0) failed++;
}
if (files.length === 0) console.log('no benchmark matched', filters.join(' '));
process.exit(failed === 0 ? 0 : 1);
