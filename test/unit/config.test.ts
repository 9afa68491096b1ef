import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, configKeys, envName, loadConfig } from '../../src/config/index.ts';
import { key32 } from '../helpers/keys.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'rescued-config-'));
const EXAMPLE = join(import.meta.dirname, '../../config/rescued.example.json');

function productionEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    RESCUED_MODE: 'production',
    RESCUED_DATA_DIR: dataDir,
    RESCUED_AUTH_SIGNING_KEYS: JSON.stringify({ k1: key32() }),
    RESCUED_AUTH_ACTIVE_SIGNING_KEY_ID: 'k1',
    RESCUED_VAULT_KEYS: JSON.stringify({ v1: key32() }),
    RESCUED_VAULT_ACTIVE_KEY_ID: 'v1',
    RESCUED_VAULT_FINGERPRINT_KEY: key32(),
  };
}

describe('configuration', () => {
  it('the example file lists every key with its default', () => {
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    expect(example).toEqual(Value.Default(ConfigSchema, {}));
    const exampleKeys = configKeys(ConfigSchema);
    for (const key of exampleKeys) expect(key.split('.').reduce((o, k) => o?.[k], example), key).not.toBeUndefined();
  });

  it('loads the example file as it is', () => {
    const dir = tmp();
    const config = loadConfig({ configFile: EXAMPLE, env: { RESCUED_DATA_DIR: dir } });
    expect(config.http.port).toBe(8080);
    expect(config.mode).toBe('sandbox');
  });

  it('derives environment names from the schema and applies them over the file', () => {
    expect(envName(['auth', 'tokenLifetimeSeconds'])).toBe('RESCUED_AUTH_TOKEN_LIFETIME_SECONDS');
    const dir = tmp();
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ http: { port: 9000, host: '0.0.0.0' } }));
    const config = loadConfig({ configFile: file, env: { RESCUED_DATA_DIR: dir, RESCUED_HTTP_PORT: '9100', RESCUED_HTTP_TRUST_PROXY: 'true' } });
    expect(config.http).toMatchObject({ port: 9100, host: '0.0.0.0', trustProxy: true });
  });

  it('takes DATABASE_URL, and RESCUED_DATABASE_URL over it', () => {
    const dir = tmp();
    expect(loadConfig({ env: { RESCUED_DATA_DIR: dir, DATABASE_URL: 'postgres://a/b' } }).database.url).toBe('postgres://a/b');
    expect(loadConfig({ env: { RESCUED_DATA_DIR: dir, DATABASE_URL: 'postgres://a/b', RESCUED_DATABASE_URL: 'postgres://c/d' } }).database.url).toBe('postgres://c/d');
  });

  it('is frozen', () => {
    const config = loadConfig({ env: { RESCUED_DATA_DIR: tmp() } });
    expect(Object.isFrozen(config.http)).toBe(true);
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).toThrow();
  });

  it.each([
    [{ http: { prot: 1 } }, {}, 'http.prot: unknown key'],
    [{ nope: true }, {}, 'nope: unknown key'],
    [{ http: { port: 'eighty' } }, {}, 'http.port'],
    [{ http: { port: 70000 } }, {}, 'http.port'],
    [{ mode: 'staging' }, {}, 'mode'],
    [{}, { RESCUED_HTTP_PORT: 'x' }, 'http.port'],
    [{}, { RESCUED_HTTP_PROT: '1' }, 'RESCUED_HTTP_PROT'],
  ])('refuses %j %j naming the key', (file, env, message) => {
    const dir = tmp();
    const path = join(dir, 'c.json');
    writeFileSync(path, JSON.stringify(file));
    expect(() => loadConfig({ configFile: path, env: { RESCUED_DATA_DIR: dir, ...env } })).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining(message) }));
  });

  it('requires every secret in production mode', () => {
    const dir = tmp();
    const full = productionEnv(dir);
    expect(loadConfig({ env: full }).mode).toBe('production');
    for (const name of ['RESCUED_AUTH_SIGNING_KEYS', 'RESCUED_VAULT_KEYS', 'RESCUED_VAULT_FINGERPRINT_KEY', 'RESCUED_VAULT_ACTIVE_KEY_ID']) {
      const env = { ...full };
      delete env[name];
      expect(() => loadConfig({ env }), name).toThrow(expect.objectContaining({ name: 'ConfigError' }));
    }
    expect(() => loadConfig({ env: { ...full, RESCUED_VAULT_ACTIVE_KEY_ID: 'v9' } })).toThrow(/vault.activeKeyId/);
    expect(() => loadConfig({ env: { ...full, RESCUED_VAULT_FINGERPRINT_KEY: 'c2hvcnQ=' } })).toThrow(/vault.fingerprintKey/);
  });

  it('generates sandbox secrets once, private to the owner, and keeps them', () => {
    const dir = tmp();
    const a = loadConfig({ env: { RESCUED_DATA_DIR: dir } });
    const b = loadConfig({ env: { RESCUED_DATA_DIR: dir } });
    expect(a.auth.signingKeys).toEqual(b.auth.signingKeys);
    expect(a.vault.fingerprintKey).toBe(b.vault.fingerprintKey);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('a bad configuration stops the process with exit code 78 and one line naming the key', () => {
    const dir = tmp();
    const res = spawnSync(process.execPath, ['src/main.ts', 'migrate'], {
      env: { ...process.env, RESCUED_DATA_DIR: dir, RESCUED_HTTP_PORT: 'x', DATABASE_URL: '' },
      encoding: 'utf8',
    });
    expect(res.status).toBe(78);
    expect(res.stderr.trim().split('\n')).toEqual(['rescued: configuration error: http.port: expected a number, got "x" (from RESCUED_HTTP_PORT)']);
    const prod = spawnSync(process.execPath, ['src/main.ts', 'serve'], { env: { ...process.env, RESCUED_DATA_DIR: dir, RESCUED_MODE: 'production' }, encoding: 'utf8' });
    expect(prod.status).toBe(78);
    expect(prod.stderr).toContain('auth.signingKeys');
  });
});
