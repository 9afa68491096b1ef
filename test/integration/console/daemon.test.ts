// The daemon's own wiring: in sandbox it serves the console on its side-port with a generated
// operator token (told in its log, never printed), and GET /v1/reports/recovery beside it.
// In-process (startDaemon), on both databases, with the stages the console does not need
// turned off. (Off in production and with console.enabled false: test/unit/console.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { createLogger } from '../../../src/log.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import { DB_KINDS, createServerDatabase, seedPgliteDir } from '../../helpers/db.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(DB_KINDS)('the daemon on %s', (kind) => {
  it('serves the console in sandbox behind a generated operator token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rescued-console-daemon-'));
    dirs.push(dataDir);
    const server = kind === 'postgres' ? await createServerDatabase({ migrated: true }) : undefined;
    if (!server) seedPgliteDir(pgliteDirFor(dataDir));
    const env = {
      RESCUED_DATA_DIR: dataDir, RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false', RESCUED_ENGINE_ENABLED: 'false', RESCUED_WEBHOOKS_ENABLED: 'false',
      ...(server ? { RESCUED_DATABASE_URL: server.url } : {}),
    };
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
    const daemon = await startDaemon(loadConfig({ env }), log);
    try {
      const token = readFileSync(join(dataDir, 'console-token'), 'utf8').trim();
      const enabled = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'console enabled');
      expect(enabled).toMatchObject({ component: 'console', path: '/console', operatorTokenFile: join(dataDir, 'console-token') });
      expect(lines.join('\n')).not.toContain(token);
      expect((await daemon.http.inject({ url: '/console' })).statusCode).toBe(303);
      const report = await daemon.http.inject({ url: '/console/api/report.json', headers: { authorization: `Bearer ${token}` } });
      expect(report.statusCode).toBe(200);
      expect(report.json()).toMatchObject({ mid: null, ordersByState: { APPROVED: 0 }, byMerchant: [], overall: { orders: 0, recoveryRate: null } });
      expect((await daemon.http.inject({ url: '/v1/reports/recovery' })).statusCode).toBe(401);
      const asset = await daemon.http.inject({ url: '/console/assets/uplot.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    } finally {
      await daemon.stop();
      await server?.drop();
    }
  });
});
