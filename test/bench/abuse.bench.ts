// The abuse table: the real daemon (`rescued serve`, a child process) fed malformed,
// truncated, huge, deeply nested, wrongly encoded and prototype-polluting inputs on every
// HTTP route and in batch files (uploaded with the OpenSSH client), then the SFTP abuse list.
// Each input must be refused with its catalogued error (docs/errors.md) or SFTP status, the
// daemon must keep serving, and nothing may be stored.
//   npm run bench -- abuse [--db postgres|pglite]
// Prints one table; exits non-zero when any input got a wrong answer or crashed the daemon.
import { parseArgs } from 'node:util';
import { batchCases } from './abuse/batch-files.ts';
import { runBatches } from './abuse/batch-run.ts';
import { noPollution, serving, storedNothing } from './abuse/checks.ts';
import { startStack, type Kind, type Stack } from './abuse/daemon.ts';
import { makeFixtures } from './abuse/fixtures.ts';
import { httpCases, REFUND_CASES } from './abuse/http-cases.ts';
import { runHttp } from './abuse/http-run.ts';
import { runSftp } from './abuse/sftp-abuse.ts';
import { allTables, changes } from './abuse/store.ts';
import { crash, Tally, wrong } from './abuse/verdict.ts';

const { values: opts } = parseArgs({ options: { db: { type: 'string', default: 'postgres' } } });
if (opts.db !== 'postgres' && opts.db !== 'pglite') throw new Error(`--db must be postgres or pglite, not ${opts.db}`);
const KIND: Kind = opts.db;
/** The daemon's default http.bodyLimitBytes. */
const BODY_LIMIT = 1_048_576;

let stack: Stack | undefined;
// Interrupted: the child, the scratch database and the temp folder still go.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void (stack?.dispose() ?? Promise.resolve()).finally(() => process.exit(130)));

async function abuse(s: Stack, tally: Tally): Promise<void> {
  const f = await makeFixtures(s, REFUND_CASES);
  // PGlite can be counted only with the daemon stopped: count every table around the whole run.
  let before: Record<string, number> | undefined;
  if (KIND === 'pglite') {
    await s.stop();
    before = await allTables(s);
    await s.start();
  }
  await runHttp(s, f, tally, httpCases(f, BODY_LIMIT));
  await runBatches(s, f, tally, batchCases(s, f));
  await storedNothing(s, f, tally, 'SFTP · all requests', () => runSftp(s, tally));
  await noPollution(s, f, tally, 'after everything');
  const problem = await serving(s);
  if (problem) tally.flag('after everything', 'GET /healthz and /readyz', crash(problem));
  if (before) {
    await s.stop();
    // Batches rejected entry by entry are rows of their own (runBatches allowed them as it went).
    const diff = changes(before, await allTables(s)).filter((d) => !d.startsWith('batches '));
    if (diff.length) tally.flag('after everything', 'rows stored (PGlite, whole run)', wrong(diff.join(', ')));
  }
}

async function main(): Promise<number> {
  const t0 = Date.now();
  console.log(`abuse: the daemon on ${KIND}`);
  const tally = new Tally();
  try {
    stack = await startStack(KIND);
    console.log(`  daemon up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await abuse(stack, tally);
  } finally {
    await stack?.dispose();
  }
  console.log(`\n${tally.render()}\n`);
  const t = tally.totals();
  console.log(`${t.tried} inputs tried, ${t.refused} refused correctly, ${t.wrong} wrong, ${t.crashes} crashes; ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
  return t.wrong > 0 || t.crashes > 0 ? 1 : 0;
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
