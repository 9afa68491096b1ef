// Prints the slowest test files of a vitest JSON report (`--reporter=json --outputFile.json=F`),
// so that a change can see what its tests cost: `node test/slowest.ts report.json [count]`.
// `npm run test:slowest` runs the suite and prints them.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface Report {
  startTime: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{ name: string; startTime: number; endTime: number; assertionResults: unknown[] }>;
}

const [file, countArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node test/slowest.ts <vitest-json-report> [count]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
const count = Number(countArg ?? 15);
const files = report.testResults
  .map((t) => ({ seconds: (t.endTime - t.startTime) / 1000, tests: t.assertionResults.length, name: relative(process.cwd(), t.name) }))
  .sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((s, f) => s + f.seconds, 0);
const end = Math.max(...report.testResults.map((t) => t.endTime));
process.stdout.write(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped; ` + `${files.length} files, ${total.toFixed(0)} s of file time in ${((end - report.startTime) / 1000).toFixed(0)} s\n`);
process.stdout.write(`the ${Math.min(count, files.length)} slowest files:\n`);
for (const f of files.slice(0, count)) process.stdout.write(`${f.seconds.toFixed(1).padStart(7)} s  ${String(f.tests).padStart(4)} tests  ${f.name}\n`);
