// The console's pieces that need no server: escaping, the operator credential (generated in
// sandbox, required in production), and the session cookie (signed, expiring, bound to the
// operator token).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeHtml, html } from '../../../src/http/console/html.ts';
import { consoleEnabled, operatorCredential, TOKEN_FILE } from '../../../src/http/console/credential.ts';
import { createConsoleDeps } from '../../../src/http/console/deps.ts';
import type { Db } from '../../../src/db/client.ts';
import { createLogger } from '../../../src/log.ts';
import { isOperatorToken, isValidSession, newSession, type SessionSettings } from '../../../src/http/console/session.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { key32 } from '../../helpers/keys.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'rescued-console-unit-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const production = (dataDir: string, extra: NodeJS.ProcessEnv = {}) => loadConfig({
  env: {
    RESCUED_MODE: 'production', RESCUED_DATA_DIR: dataDir, RESCUED_AUTH_SIGNING_KEYS: JSON.stringify({ k1: key32() }), RESCUED_AUTH_ACTIVE_SIGNING_KEY_ID: 'k1',
    RESCUED_VAULT_KEYS: JSON.stringify({ v1: key32() }), RESCUED_VAULT_ACTIVE_KEY_ID: 'v1', RESCUED_VAULT_FINGERPRINT_KEY: key32(), ...extra,
  },
});

describe('console html', () => {
  it('escapes every interpolated value, and nests html as it is', () => {
    const name = `<img src=x onerror="alert('x')">&\``;
    expect(html`<td>${name}</td>`.text).toBe('<td>&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;&#96;</td>');
    expect(html`<tr>${[html`<td>${'<b>'}</td>`, null, undefined, false, 3]}</tr>`.text).toBe('<tr><td>&lt;b&gt;</td>3</tr>');
    expect(html`<div data-x="${JSON.stringify(['a"b'])}">`.text).toBe('<div data-x="[&quot;a\\&quot;b&quot;]">');
    expect(escapeHtml('plain')).toBe('plain');
  });
});

describe('console operator credential', () => {
  it('is on by default in sandbox and off in production, unless configured', () => {
    expect(consoleEnabled({ mode: 'sandbox', console: { enabled: null, operatorTokenSha256: '', sessionSeconds: 60 } })).toBe(true);
    expect(consoleEnabled({ mode: 'production', console: { enabled: null, operatorTokenSha256: '', sessionSeconds: 60 } })).toBe(false);
    expect(consoleEnabled({ mode: 'production', console: { enabled: true, operatorTokenSha256: '', sessionSeconds: 60 } })).toBe(true);
    expect(consoleEnabled({ mode: 'sandbox', console: { enabled: false, operatorTokenSha256: '', sessionSeconds: 60 } })).toBe(false);
    // Off: no dependencies, so build() registers no /console route at all (and production asks for no digest).
    const log = createLogger({ level: 'silent' });
    expect(createConsoleDeps(production(tmp()), {} as Db, log)).toBeUndefined();
    expect(createConsoleDeps(loadConfig({ env: { RESCUED_DATA_DIR: tmp(), RESCUED_CONSOLE_ENABLED: 'false' } }), {} as Db, log)).toBeUndefined();
    expect(createConsoleDeps(loadConfig({ env: { RESCUED_DATA_DIR: tmp() } }), {} as Db, log)).toMatchObject({ sessionSeconds: 28_800, livePollMs: 5000 });
  });

  it('sandbox without a digest: generates a token once into <dataDir>/console-token, mode 0600', () => {
    const dir = tmp();
    const config = loadConfig({ env: { RESCUED_DATA_DIR: dir } });
    const first = operatorCredential(config);
    const file = join(dir, TOKEN_FILE);
    expect(first.tokenFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^rco_[A-Za-z0-9_-]{43}$/);
    expect(isOperatorToken(first, token)).toBe(true);
    expect(operatorCredential(config).sha256).toEqual(first.sha256);
  });

  it('production: the configured digest, or a configuration error naming the key', () => {
    const dir = tmp();
    expect(() => operatorCredential(production(dir, { RESCUED_CONSOLE_ENABLED: 'true' }))).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining('console.operatorTokenSha256') }));
    const digest = createHash('sha256').update('a long operator token').digest('hex');
    const c = operatorCredential(production(dir, { RESCUED_CONSOLE_ENABLED: 'true', RESCUED_CONSOLE_OPERATOR_TOKEN_SHA256: digest }));
    expect(c.tokenFile).toBeUndefined();
    expect(isOperatorToken(c, 'a long operator token')).toBe(true);
    expect(isOperatorToken(c, 'a long operator token ')).toBe(false);
    expect(isOperatorToken(c, undefined)).toBe(false);
    expect(() => production(dir, { RESCUED_CONSOLE_OPERATOR_TOKEN_SHA256: 'not-hex' })).toThrow(expect.objectContaining({ message: expect.stringContaining('console.operatorTokenSha256') }));
  });

  it('sessions: signed, expiring, and void once the operator token changes', () => {
    const dir = tmp();
    let now = new Date('2026-11-20T12:00:00Z');
    const digest = (t: string) => createHash('sha256').update(t).digest('hex');
    const env = { RESCUED_CONSOLE_ENABLED: 'true', RESCUED_CONSOLE_OPERATOR_TOKEN_SHA256: digest('one') };
    const config = production(dir, env);
    const s: SessionSettings = { credential: operatorCredential(config), sessionSeconds: 3600, now: () => now };
    const cookie = newSession(s);
    expect(isValidSession(s, cookie)).toBe(true);
    const [expiry, mac] = cookie.split('.');
    expect(isValidSession(s, `${Number(expiry) + 3600}.${mac}`)).toBe(false);
    expect(isValidSession(s, `${expiry}.${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(isValidSession(s, 'garbage')).toBe(false);
    expect(isValidSession(s, undefined)).toBe(false);
    const other = { ...s, credential: operatorCredential({ ...config, console: { ...config.console, operatorTokenSha256: digest('two') } }) };
    expect(isValidSession(other, cookie)).toBe(false);
    now = new Date(now.getTime() + 3601_000);
    expect(isValidSession(s, cookie)).toBe(false);
  });
});
