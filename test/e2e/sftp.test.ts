// The SFTP drop as a merchant meets it through the real daemon: the demo banner's command
// line, `merchant add-key`, a put with the OpenSSH client, the hand-over, and Ctrl-C.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_KINDS, createServerDatabase } from '../helpers/db.ts';
import { daemonLogs, seededDataDir, startDaemon, tempDir } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { sftp, sshKey } from '../helpers/sftp.ts';

describe.each(DB_KINDS)('SFTP through rescued serve on %s', (kind) => {
  const dataDir = seededDataDir('rescued-e2e-sftp-');
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());

  async function env(): Promise<NodeJS.ProcessEnv> {
    const base = { RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_WATCH_STABILITY_MS: '200' };
    if (kind === 'pglite') return base;
    if (!drop) {
      const server = await createServerDatabase({ migrated: true });
      drop = server.drop;
      process.env.E2E_SFTP_DB_URL = server.url;
    }
    return { ...base, DATABASE_URL: process.env.E2E_SFTP_DB_URL };
  }

  it('prints the sftp command line; after add-key the printed command uploads a batch file that is handed over', async () => {
    const first = startDaemon(await env());
    const [, mid] = await first.waitFor(/add-key ([0-9a-f-]{36}) /, 'stderr');
    const [, port, username] = await first.waitFor(/sftp -P (\d+) -i \S+ (\S+)@127\.0\.0\.1/, 'stderr');
    const [, native] = await first.waitFor(/"stage":"sftp".*"nativeCrypto":(true|false)/);
    expect(['true', 'false']).toContain(native);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    const keyDir = tempDir('rescued-e2e-key-');
    const key = sshKey(keyDir);
    const added = await runCli(['merchant', 'add-key', mid!, `${key.privatePath}.pub`], await env());
    expect(added.status, added.stderr).toBe(0);

    const daemon = startDaemon({ ...(await env()), RESCUED_SFTP_PORT: port });
    await daemon.waitFor(/"stage":"http"/);
    const local = join(keyDir, 'rebills.json');
    writeFileSync(local, '{"requests":[]}');
    const res = await sftp({ port: Number(port), username: username!, key: key.privatePath }, [`put ${local} inbound/`, 'ls outbound']);
    expect(res.status, res.stderr).toBe(0);
    // The hand-over reaches intake, which refuses this header-less file with an ack.
    const [line] = await daemon.waitFor(/\{[^\n]*"msg":"batch rejected"[^\n]*\}/);
    expect(JSON.parse(line)).toMatchObject({ component: 'intake', mid, file: 'rebills.json', code: 'ERR_INTAKE_HEADER_INVALID' });
    expect(daemon.stdout()).toMatch(/"component":"sftp-audit".*"event":"upload"/);
    const t0 = Date.now();
    daemon.child.kill('SIGINT');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(daemon.stdout().match(/"event":"handed_over"/g)).toHaveLength(1);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir, databaseUrl: (await env()).DATABASE_URL, logs: daemonLogs() });
  });
});
