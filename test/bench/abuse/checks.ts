// The checks around each group of inputs: the daemon alive and serving (restarted when it
// died, so one crash does not hide the rest), nothing stored, and no trace of a polluted
// prototype in what the daemon answers afterwards.
import type { Stack } from './daemon.ts';
import type { Fixtures } from './fixtures.ts';
import { send } from './http-client.ts';
import { changes, liveCounts, type Counts } from './store.ts';
import { CANARY, crash, wrong, type Tally } from './verdict.ts';

export async function serving(s: Stack): Promise<string | undefined> {
  if (s.exited()) return 'the daemon exited';
  for (const path of ['/healthz', '/readyz']) {
    const r = await send(s.base, { method: 'GET', path }, 10_000).catch((err: Error) => ({ status: -1, body: err.message }));
    if (r.status !== 200) return `GET ${path} answered ${r.status || 'nothing'}`;
  }
  return undefined;
}

/** After a group: a crash when the daemon stopped serving (it is then started again). */
export async function afterGroup(s: Stack, tally: Tally, label: string): Promise<void> {
  const problem = await serving(s);
  if (!problem) return;
  tally.flag(label, 'health check after the group', crash(problem));
  await s.stop();
  await s.start();
}

/** Runs a group between two counts of what is stored; `allowed` are the rows the group may add. */
export async function storedNothing(s: Stack, f: Fixtures, tally: Tally, label: string, body: () => Promise<Counts | void>): Promise<void> {
  const before = await liveCounts(s, f);
  const allowed = (await body()) ?? {};
  await afterGroup(s, tally, label);
  const diff = changes(before, await liveCounts(s, f), allowed);
  if (diff.length) tally.flag(label, 'rows stored by the group', wrong(diff.join(', ')));
}

/**
 * Answers that walk objects the daemon builds (validation errors, listings, the report): an
 * Object.prototype polluted by an earlier input would show up in them as the canary key.
 */
export async function noPollution(s: Stack, f: Fixtures, tally: Tally, label: string): Promise<void> {
  const probes = [
    send(s.base, { method: 'POST', path: '/v1/evaluate', headers: { 'content-type': 'application/json', authorization: f.bearer }, body: '{"unknownField":1}' }),
    send(s.base, { method: 'POST', path: f.tokenizePath, headers: { 'content-type': 'application/json' }, body: '{"payment_method":{"credit_card":{}}}' }),
    send(s.base, { method: 'GET', path: '/v1/orders?limit=2', headers: { authorization: f.bearer } }),
    send(s.base, { method: 'GET', path: '/v1/reports/recovery', headers: { authorization: f.bearer } }),
    send(s.base, { method: 'GET', path: '/console/api/report.json', headers: { authorization: `Bearer ${f.operator}` } }),
  ];
  for (const r of await Promise.all(probes)) {
    if (r.body.includes(CANARY) || r.status >= 500 || r.status === 0) tally.flag(label, 'prototype canary', wrong(`a later answer (${r.status}) shows the polluting key or fails: ${r.body.slice(0, 160)}`));
  }
}
