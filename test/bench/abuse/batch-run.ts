// Uploads the hostile batch files with the OpenSSH client (as merchants do), waits for each
// file's ack in outbound/ and judges it. Files rejected entry by entry still leave a batch
// row (the ack names it); nothing else may be stored. A file with no ack in time is a wrong
// answer (the daemon kept it, or is retrying it), a dead daemon a crash.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sftp } from '../../helpers/sftp.ts';
import type { BatchCase, BatchExpect } from './batch-files.ts';
import { storedNothing } from './checks.ts';
import type { Stack } from './daemon.ts';
import type { Fixtures } from './fixtures.ts';
import { crash, ok, wrong, type Result, type Tally } from './verdict.ts';

const ACK_TIMEOUT_MS = 45_000;

interface Ack {
  status: string;
  batchId?: string | null;
  counts?: { accepted: number };
  error?: { code: string };
  rejected?: Array<{ errors: Array<{ code: string }> }>;
}

export function judgeAck(ack: Ack, expect: BatchExpect): Result {
  if ('file' in expect) {
    const code = ack.error?.code;
    if (ack.status === 'rejected' && code && expect.file.includes(code)) return ok;
    return wrong(`ack ${ack.status}${code ? ` ${code}` : ''}; expected the file rejected with ${expect.file.join(' | ')}`);
  }
  const codes = (ack.rejected ?? []).flatMap((r) => r.errors.map((e) => e.code));
  if (ack.status === 'rejected' && ack.counts?.accepted === 0 && codes.includes(expect.entry)) return ok;
  return wrong(`ack ${ack.status}, ${ack.counts?.accepted ?? '?'} accepted, codes ${codes.join(',') || ack.error?.code || 'none'}; expected the entry rejected with ${expect.entry}`);
}

async function upload(s: Stack, cases: BatchCase[]): Promise<string> {
  const dir = join(s.work, 'batches');
  mkdirSync(dir, { recursive: true });
  for (const c of cases) writeFileSync(join(dir, c.file), c.bytes);
  // `-put`: one refused upload must not stop the rest of the batch.
  const res = await sftp({ port: s.sftpPort, username: s.a.sftpUsername, key: s.key }, cases.map((c) => `-put ${join(dir, c.file)} inbound/${c.file}`));
  return res.status === 0 ? '' : res.stderr.slice(0, 300);
}

async function waitForAcks(s: Stack, cases: BatchCase[]): Promise<Map<string, Ack>> {
  const outbound = join(s.dataDir, 'sftp', s.a.sftpUsername, 'outbound');
  const acks = new Map<string, Ack>();
  const started = Date.now();
  while (acks.size < cases.length && Date.now() - started < ACK_TIMEOUT_MS && !s.exited()) {
    for (const c of cases) {
      const path = join(outbound, `${c.file}.ack.json`);
      if (!acks.has(c.file) && existsSync(path)) acks.set(c.file, JSON.parse(readFileSync(path, 'utf8')) as Ack);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return acks;
}

export async function runBatches(s: Stack, f: Fixtures, tally: Tally, cases: BatchCase[]): Promise<void> {
  const started = Date.now();
  await storedNothing(s, f, tally, 'batch · all categories', async () => {
    const problem = await upload(s, cases);
    if (problem) tally.flag('batch · all categories', 'sftp put', wrong(`the OpenSSH client failed: ${problem}`));
    const acks = await waitForAcks(s, cases);
    let batches = 0;
    for (const c of cases) {
      const ack = acks.get(c.file);
      const result = ack ? judgeAck(ack, c.expect) : s.exited() ? crash('the daemon exited') : wrong(`no ack within ${ACK_TIMEOUT_MS / 1000} s`);
      if (ack?.batchId) batches++;
      tally.add(c.label, `${c.file}: ${c.name}`, result);
    }
    // A file rejected entry by entry is a batch (its ack has a batchId); its entries are not orders.
    return { batches, 'API: batches of the abuser': batches };
  });
  process.stdout.write(`  batch files: ${cases.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
