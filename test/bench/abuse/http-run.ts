// Sends the HTTP inputs a group (table row) at a time, a few at once, and judges each answer;
// a refund input is also judged by the order's refunded amount afterwards.
import type { Stack } from './daemon.ts';
import type { Fixtures } from './fixtures.ts';
import { send } from './http-client.ts';
import type { HttpCase } from './http-cases.ts';
import { noPollution, storedNothing } from './checks.ts';
import { crash, judgeHttp, wrong, type Result, type Tally } from './verdict.ts';

const CONCURRENCY = 4;

async function judge(s: Stack, f: Fixtures, c: HttpCase): Promise<Result> {
  let result: Result;
  try {
    result = judgeHttp(await send(s.base, c.request), c.accepts);
  } catch (err) {
    return crash((err as Error).message);
  }
  if (s.exited()) return crash('the daemon exited');
  if (c.refundOf && result.kind === 'ok') {
    const order = await send(s.base, { method: 'GET', path: `/v1/orders/${c.refundOf}`, headers: { authorization: f.bearer } });
    const refunded = order.json?.refundedAmount;
    if (refunded !== 0) return wrong(`the order was refunded (refundedAmount ${String(refunded)})`);
  }
  return result;
}

async function runGroup(s: Stack, f: Fixtures, tally: Tally, cases: HttpCase[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const result = await judge(s, f, c);
      tally.add(c.label, c.input, result);
      if (result.kind === 'crash' && s.exited()) {
        await s.stop();
        await s.start();
      }
    }
  }));
}

export async function runHttp(s: Stack, f: Fixtures, tally: Tally, cases: HttpCase[]): Promise<void> {
  const groups = new Map<string, HttpCase[]>();
  for (const c of cases) groups.set(c.label, [...(groups.get(c.label) ?? []), c]);
  for (const [label, group] of groups) {
    const started = Date.now();
    await storedNothing(s, f, tally, label, () => runGroup(s, f, tally, group));
    if (/pollution|unknown/.test(label)) await noPollution(s, f, tally, label);
    process.stdout.write(`  ${label}: ${group.length} inputs in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
