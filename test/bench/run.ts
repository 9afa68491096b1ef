// `npm run bench [-- name ... --option value ...]`: runs every test/bench/*.bench.ts (or the one
// each argument names, else those whose name contains it) in its own process, so one benchmark's heap and RSS never
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
const benches = readdirSync(here).filter((f) => f.endsWith('.bench.ts'));
// A name that is a benchmark's whole name chooses that one alone (`rescue` is not also
// `rescue-learning`); any other word chooses every benchmark whose name contains it.
const chosen = (name: string) => (benches.includes(`${name}.bench.ts`) ? [`${name}.bench.ts`] : benches.filter((f) => f.includes(name)));
const files = filters.length === 0 ? benches.sort() : [...new Set(filters.flatMap(chosen))].sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const res = spawnSync(process.execPath, ['--expose-gc', join(here, file), ...options], { stdio: 'inherit' });
  if (res.status !== 0) failed++;
}
if (files.length === 0) console.log('no benchmark matched', filters.join(' '));
process.exit(failed === 0 ? 0 : 1);
