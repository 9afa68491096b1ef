// `npm start` on a fresh clone writes a ready-to-upload batch for the demo merchant and prints
// the one `sftp` line that uploads it: the line is run as printed, by a shell and the real
// OpenSSH client, and the acknowledgement is read back. A restart writes a fresh one.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonLogs, seededDataDir, startDaemon, type RunningDaemon } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { waitFor } from '../helpers/wait.ts';

const UPLOAD = /Upload it with:\n\s+(echo .+)\n/;

async function ackOf(daemon: RunningDaemon, outbound: string, file: string): Promise<Record<string, unknown>> {
  const ack = join(outbound, `${basename(file)}.ack.json`);
  await waitFor(() => existsSync(ack), { what: `the ack of ${basename(file)}`, timeoutMs: 60_000, detail: () => daemon.stdout().slice(-3000) });
  return JSON.parse(readFileSync(ack, 'utf8')) as Record<string, unknown>;
}

/** Runs the printed line as a person pasting it would: through a POSIX shell. */
function paste(line: string) {
  return spawnSync('sh', ['-c', line], { encoding: 'utf8', timeout: 60_000 });
}

describe('the sandbox\'s sample batch', () => {
  const dataDir = seededDataDir('rescued-demo-');
  const env = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0' };

  it('is written for the demo merchant with its mid and a working token, and the printed sftp line uploads it', async () => {
    const daemon = startDaemon(env);
    const [, line] = await daemon.waitFor(UPLOAD, 'stderr');
    const [, mid] = await daemon.waitFor(/mid\s+([0-9a-f-]{36})/, 'stderr');
    const [, file] = /put (\S+) inbound\//.exec(line!)!;
    const [, outbound] = await daemon.waitFor(/Then watch (\S+)\/ for/, 'stderr');
    expect(file).toMatch(new RegExp(`^${join(dataDir, 'demo')}/sample-\\d{14}\\.json$`));
    const batch = JSON.parse(readFileSync(file!, 'utf8')) as { mid: string; authorizationToken: string; requests: Array<{ paymentMethod: { token: boolean } }> };
    expect(batch.mid).toBe(mid);
    expect(batch.authorizationToken).toMatch(/^Bearer eyJ/);
    expect(batch.requests.every((r) => r.paymentMethod.token)).toBe(true);

    // The banner says the demo key is registered already: its sftp line connects as printed,
    // before anything else is registered (run in batch mode: `ls` of the merchant's home).
    const [, demoLine] = await daemon.waitFor(/registered already \(.+\):\n\s+(sftp .+)\n/, 'stderr');
    expect(daemon.stderr()).not.toContain('Register your public key first');
    const session = paste(`echo ls | ${demoLine!.replace(/^sftp /, 'sftp -b - ')}`);
    expect(session.status, session.stderr).toBe(0);
    expect(session.stdout).toContain('inbound');

    const upload = paste(line!);
    expect(upload.status, upload.stderr).toBe(0);
    const ack = await ackOf(daemon, outbound!, file!);
    // Every entry is accepted: the generated declines are dated in the past, not the template's day.
    expect(ack).toMatchObject({ mid, status: 'accepted', counts: { entries: 6, accepted: 6, rejected: 0 } });
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  });

  it('is written afresh at the next start (new file, new port, no new merchant), and uploads too', async () => {
    const before = readdirSync(join(dataDir, 'demo')).filter((f) => f.startsWith('sample-'));
    const daemon = startDaemon(env);
    const [, line] = await daemon.waitFor(UPLOAD, 'stderr');
    const [, outbound] = await daemon.waitFor(/Then watch (\S+)\/ for/, 'stderr');
    const [, file] = /put (\S+) inbound\//.exec(line!)!;
    expect(daemon.stderr()).not.toContain('demo merchant was created');
    expect(before.map((f) => join(dataDir, 'demo', f))).not.toContain(file);
    expect(readdirSync(join(dataDir, 'demo')).filter((f) => f.startsWith('sample-'))).toEqual([basename(file!)]);

    const upload = paste(line!);
    expect(upload.status, upload.stderr).toBe(0);
    expect(await ackOf(daemon, outbound!, file!)).toMatchObject({ status: 'accepted', counts: { accepted: 6 } });
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  });

  it('leaves no card number in clear: the batch names its cards by token', async () => {
    await expectNoCardData({ dataDir, logs: daemonLogs() });
  });
});
