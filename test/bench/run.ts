// `npm run bench [-- name ... --option value ...]`: runs every test/bench/*.bench.ts (or those whose name
// contains one of the arguments) in its own process, so one benchmark's heap and RSS never
// colour another's. Each benchmark prints its own baseline and ratio from the same run.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// Bare words choose benchmarks; `--option value` pairs are passed on to each of them.
const filters: string[] = [];
const options: string[] = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (!arg.startsWith('--')) filters.push(arg);
  else if (arg.includes('=') || args[i + 1] === undefined || args[i + 1]!.startsWith('--')) options.push(arg);
  else options.push(arg, args[++i]!);
}
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const res = spawnSync(process.execPath, ['--expose-gc', join(here, file), ...options], { stdio: 'inherit' });
  if (res.status !== 0) failed++;
}
if (files.length === 0) console.log('no benchmark matched', filters.join(' '));
process.exit(failed === 0 ? 0 : 1);
