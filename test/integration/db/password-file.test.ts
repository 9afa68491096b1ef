// database.passwordFile: the PostgreSQL password kept out of the URL, in a file only its owner
// reads. The file's text is what the driver sends when the server asks for a password (seen on
// the wire by a server that asks, since the test server trusts 127.0.0.1), the configuration
// refuses a file others can read, and the password appears in no error. On the
// TEST_DATABASE_URL server, a scratch role WITH PASSWORD connects through the file and is
// dropped afterwards.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, serverOptions } from '../../../src/db/client.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { readSecretFile } from '../../../src/config/secrets.ts';
import { ConfigError } from '../../../src/config/error.ts';
import { silentLog } from '../../helpers/db.ts';
import { sqlState } from '../../../src/sqlstate.ts';

const dir = mkdtempSync(join(tmpdir(), 'rescued-passfile-'));
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

function passwordFile(name: string, text: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A server that asks for a cleartext password (AuthenticationCleartextPassword), keeps what the
 * client sends, and refuses it: the password as it leaves the driver.
 */
function askingServer(): Promise<{ server: Server; port: number; received: string[] }> {
  const received: string[] = [];
  const server = createServer((socket: Socket) => {
    let buffer = Buffer.alloc(0);
    let started = false;
    let answered = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (answered) return;
      buffer = Buffer.concat([buffer, chunk]);
      if (!started && buffer.length >= 4 && buffer.length >= buffer.readInt32BE(0)) {
        buffer = buffer.subarray(buffer.readInt32BE(0));
        started = true;
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])); // 'R', length 8, cleartext
      }
      if (started && buffer.length >= 5 && buffer[0] === 0x70 && buffer.length >= 1 + buffer.readInt32BE(1)) {
        answered = true;
        received.push(buffer.subarray(5, 1 + buffer.readInt32BE(1) - 1).toString('utf8'));
        const fields = Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed for user "rescued"\0\0');
        const head = Buffer.alloc(5);
        head.write('E', 0);
        head.writeInt32BE(4 + fields.length, 1);
        socket.end(Buffer.concat([head, fields]));
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, received })));
}

describe('database.passwordFile', () => {
  it('its text (without the final line break) is what the driver sends when the server asks, and no error repeats it', async () => {
    const { server, port, received } = await askingServer();
    try {
      const file = passwordFile('asked', `${PASSWORD}\n`);
      const database = await openDatabase({ url: `postgres://rescued@127.0.0.1:${port}/rescued`, passwordFile: file, poolSize: 1, log: silentLog });
      const err = await database.ping().then(() => undefined, (e: unknown) => e as Error & { code?: string });
      await database.close();
      // The driver may try its connection again after the refusal: each time with the file's password.
      expect(received.length).toBeGreaterThan(0);
      expect(new Set(received)).toEqual(new Set([PASSWORD]));
      expect(sqlState(err)).toBe('28P01');
      for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
        expect(JSON.stringify(e, Object.getOwnPropertyNames(e))).not.toContain(PASSWORD);
        expect(String((e as Error).stack)).not.toContain(PASSWORD);
      }
    } finally {
      server.close();
    }
  });

  it('the connection options carry the file, read at each connection, and leave the URL as it is', () => {
    const file = passwordFile('options', PASSWORD);
    const opts = serverOptions({ url: 'postgres://rescued@db.example:5432/rescued', passwordFile: file });
    expect(opts.url).toBe('postgres://rescued@db.example:5432/rescued');
    const password = (opts.options as { password?: () => string }).password;
    expect(typeof password).toBe('function');
    expect(password!()).toBe(PASSWORD);
    // A rotated password is read by the next connection, no restart needed.
    writeFileSync(file, 'rotated\n');
    expect(password!()).toBe('rotated');
    // No file: nothing added (the URL's own password, if any, is the driver's business).
    expect(serverOptions({ url: 'postgres://rescued@db.example/rescued' }).options).toEqual({});
    // The options never hold the password as a value that a log of them would show.
    expect(JSON.stringify(opts)).not.toContain(PASSWORD);
  });

  it.each([
    [0o644, 'readable by others'],
    [0o604, 'readable by others'],
    [0o620, 'readable or writable by others'],
    [0o640, 'readable by others'],
  ])('a file of mode %s owned by its user is refused, naming the file and never its content', (mode) => {
    const file = passwordFile(`open-${mode.toString(8)}`, PASSWORD, mode);
    let err: unknown;
    try {
      readSecretFile(file, 'database.passwordFile');
    } catch (e) {
      err = e;
    }
    // Owned by root, a 0640 file is the root:rescued layout the install uses: accepted there.
    if (process.getuid?.() === 0 && mode === 0o640) return expect(err).toBeUndefined();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toMatch(/chmod 600/);
    expect((err as Error).message).not.toContain(PASSWORD);
  });

  it('an empty file, a second line, a missing file: refused, naming the key', () => {
    expect(() => readSecretFile(passwordFile('empty', '\n'), 'database.passwordFile')).toThrow(/database.passwordFile.*is empty/);
    expect(() => readSecretFile(passwordFile('two', `${PASSWORD}\nmore\n`), 'database.passwordFile')).toThrow(/alone, on one line/);
    expect(() => readSecretFile(join(dir, 'missing'), 'database.passwordFile')).toThrow(/cannot read .*missing: ENOENT/);
  });

  it('the configuration checks it at load: a server URL without a password, a private file', () => {
    const file = passwordFile('config', PASSWORD);
    const env = (extra: Record<string, string>) => ({ RESCUED_DATA_DIR: join(dir, 'data'), ...extra });
    const config = loadConfig({ env: env({ RESCUED_DATABASE_URL: 'postgres://rescued@127.0.0.1/rescued', RESCUED_DATABASE_PASSWORD_FILE: file }) });
    expect(config.database.passwordFile).toBe(file);
    expect(JSON.stringify(config)).not.toContain(PASSWORD);
    const refused = (extra: Record<string, string>) => {
      try {
        loadConfig({ env: env(extra) });
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error('loaded');
    };
    expect(refused({ RESCUED_DATABASE_URL: 'postgres://rescued:inline@127.0.0.1/rescued', RESCUED_DATABASE_PASSWORD_FILE: file }).message).toMatch(/database.passwordFile.*holds a password too/);
    expect(refused({ RESCUED_DATABASE_PASSWORD_FILE: file }).message).toMatch(/database.passwordFile.*set database.url too/);
    chmodSync(file, 0o644);
    expect(refused({ RESCUED_DATABASE_URL: 'postgres://rescued@127.0.0.1/rescued', RESCUED_DATABASE_PASSWORD_FILE: file }).message).toMatch(/readable or writable by others/);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('database.passwordFile on the PostgreSQL server', () => {
  const role = `rescued_pw_${randomBytes(4).toString('hex')}`;
  const admin = () => postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });

  beforeAll(async () => {
    const sql = admin();
    try {
      await sql.unsafe(`create role ${role} with login password '${PASSWORD}'`);
    } finally {
      await sql.end();
    }
  });
  afterAll(async () => {
    const sql = admin();
    try {
      await sql.unsafe(`drop role if exists ${role}`);
    } finally {
      await sql.end();
    }
  });

  it('a role WITH PASSWORD connects with the password from the file, none in the URL', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.username = role;
    url.password = '';
    const file = passwordFile('server', `${PASSWORD}\n`);
    const database = await openDatabase({ url: url.toString(), passwordFile: file, poolSize: 1, log: silentLog });
    try {
      const rows = (await database.db.execute('select current_user as who' as never)) as unknown as Array<{ who: string }>;
      expect(rows[0]!.who).toBe(role);
    } finally {
      await database.close();
    }
  });
});
