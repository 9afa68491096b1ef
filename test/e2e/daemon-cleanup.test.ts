// What test/helpers/daemon.ts promises the test after one: a daemon the test left running —
// as a test that fails or times out leaves it — is killed and reaped before the next test
// starts, so the data folder it held (often opened next by the card sweep) is free.
import { describe, expect, it } from 'vitest';
import { seededDataDir, startDaemon } from '../helpers/daemon.ts';
import { runCli } from '../helpers/cli.ts';

describe('a daemon a test leaves running', () => {
  const env = { RESCUED_DATA_DIR: seededDataDir('rescued-left-running-'), RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false' };
  let pid = 0;

  it('is left running by this test', async () => {
    const daemon = startDaemon(env);
    await daemon.waitFor(/"stage":"http".*"stage started"/);
    pid = daemon.child.pid!;
    expect(() => process.kill(pid, 0)).not.toThrow();
  });

  it('is gone when the next test starts, and its data folder is free', async () => {
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // Run here, on the embedded database itself: nobody holds the folder any more.
    const res = await runCli(['merchant', 'list'], env);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^[0-9a-f-]{36} /m);
  });
});
