// What the side-port shows in production: no API reference unless configured on, metrics only
// behind their own bearer token, and HTTPS straight from the config when it names a
// certificate. Sandbox keeps its open reference and metrics.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { loadConfig } from '../../../src/config/index.ts';

const status = async (t: TestApp, url: string, headers: Record<string, string> = {}) => (await t.app.inject({ method: 'GET', url, headers })).statusCode;

describe('the production surface of the side-port', () => {
  const apps: TestApp[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'rescued-tls-'));
  afterAll(async () => {
    for (const t of apps) await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const app = async (...args: Parameters<typeof testApp>) => {
    const t = await testApp(...args);
    apps.push(t);
    return t;
  };

  it('production, defaults: no /docs, no /openapi.json, no /metrics', async () => {
    const t = await app('pglite', undefined, { mode: 'production' });
    expect(await status(t, '/docs')).toBe(404);
    expect(await status(t, '/openapi.json')).toBe(404);
    expect(await status(t, '/metrics')).toBe(404);
    expect(await status(t, '/healthz')).toBe(200);
  });

  it('production with docs on and a metrics token: the reference, and metrics for the token only', async () => {
    const t = await app('pglite', undefined, { mode: 'production', api: { docsEnabled: true, metricsToken: 'mt_7b0e4c' } });
    expect(await status(t, '/openapi.json')).toBe(200);
    expect(await status(t, '/metrics')).toBe(401);
    expect(await status(t, '/metrics', { authorization: 'Bearer mt_wrong' })).toBe(401);
    expect(await status(t, '/metrics', { authorization: 'Bearer mt_7b0e4c' })).toBe(200);
  });

  it('sandbox keeps the reference and open metrics', async () => {
    const t = await app('pglite');
    expect(await status(t, '/openapi.json')).toBe(200);
    expect(await status(t, '/metrics')).toBe(200);
  });

  it('serves HTTPS with the configured certificate and key', async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const config = loadConfig({ env: { RESCUED_DATA_DIR: dir, RESCUED_HTTP_TLS_CERT_FILE: join(dir, 'cert.pem'), RESCUED_HTTP_TLS_KEY_FILE: join(dir, 'key.pem') } });
    const cert = readFileSync(config.http.tlsCertFile);
    const t = await app('pglite', undefined, { tls: { cert, key: readFileSync(config.http.tlsKeyFile) } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const code = await new Promise<number | undefined>((resolve, reject) => get({ host: '127.0.0.1', port, path: '/healthz', ca: cert }, (res) => (res.resume(), resolve(res.statusCode))).on('error', reject));
    expect(code).toBe(200);
  });

  it('refuses a certificate without its key at start-up', () => {
    expect(() => loadConfig({ env: { RESCUED_DATA_DIR: dir, RESCUED_HTTP_TLS_CERT_FILE: join(dir, 'cert.pem') } })).toThrow(/tlsKeyFile/);
  });
});
