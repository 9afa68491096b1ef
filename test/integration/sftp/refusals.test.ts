// What the SFTP server refuses, each with an audit line: unknown keys and users, foreign
// addresses, disabled merchants, paths outside the chroot, symbolic links, writes to
// outbound/, shell, exec and forwarding, another merchant's folder, busy files, oversized
// uploads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { DB_KINDS } from '../../helpers/db.ts';
import { sftp, ssh, sshKey, SSH_OPTIONS, startTestSftp, type Login, type TestSftp } from '../../helpers/sftp.ts';
import { waitFor } from '../../helpers/wait.ts';

describe.each(DB_KINDS)('SFTP refusals on %s', (kind) => {
  let t: TestSftp;
  let login: Login;
  let dir: string;
  let inbound: string;
  let release: (() => void) | undefined;

  beforeAll(async () => {
    // A held onFileReady keeps `held.json` busy, as a file under ingestion.
    t = await startTestSftp(kind, { authFailuresPerMinute: 1000, maxFileSizeBytes: 65_536 }, (f) => {
      if (f.name === 'held.json') return new Promise<void>((resolve) => (release = resolve));
    });
    ({ login, dir } = await t.merchant('Refusal Shop'));
    inbound = join(t.stage.root, login.username, 'inbound');
  });
  afterAll(async () => {
    release?.();
    await t?.close();
  });

  const lastAudit = (event: string) => t.audit().filter((l) => l.event === event).at(-1);
  const refusedWith = (reason: string) => expect(lastAudit('refused')).toMatchObject({ username: login.username, remoteAddress: '127.0.0.1', reason });

  it('refuses a key that is not registered, and an unknown user', async () => {
    const stranger = sshKey(dir, 'stranger');
    expect((await sftp({ ...login, key: stranger.privatePath }, ['ls'])).status).not.toBe(0);
    expect(lastAudit('login_refused')).toMatchObject({ username: login.username, reason: 'key not registered', remoteAddress: '127.0.0.1' });
    expect((await sftp({ ...login, username: 'nobody-12345678' }, ['ls'])).status).not.toBe(0);
    expect(lastAudit('login_refused')).toMatchObject({ username: 'nobody-12345678', reason: 'unknown user' });
  });

  it('refuses a login from outside the user’s own allow list (10.0.0.0/8, client 127.0.0.1)', async () => {
    const far = await t.merchant('Far Away Shop', ['10.0.0.0/8']);
    expect((await sftp(far.login, ['ls'])).status).not.toBe(0);
    expect(lastAudit('login_refused')).toMatchObject({ username: far.login.username, reason: 'source address not allowed for this user' });
  });

  it('refuses a disabled merchant', async () => {
    const closed = await t.merchant('Closed Shop');
    expect((await sftp(closed.login, ['ls'])).status).toBe(0);
    await t.merchants.disable(closed.mid);
    expect((await sftp(closed.login, ['ls'])).status).not.toBe(0);
    expect(lastAudit('login_refused')).toMatchObject({ username: closed.login.username, mid: closed.mid, reason: 'merchant disabled' });
  });

  it('refuses `cd ..` and `get ../../etc/passwd` at the top of the chroot', async () => {
    expect((await sftp(login, ['cd ..'])).status).not.toBe(0);
    refusedWith('path leads outside the home folder');
    const res = await sftp(login, [`get ../../etc/passwd ${join(dir, 'passwd')}`]);
    expect(res.status).not.toBe(0);
    refusedWith('path leads outside the home folder');
    expect(existsSync(join(dir, 'passwd'))).toBe(false);
  });

  it('refuses another merchant’s folder, by `..` and by name', async () => {
    const other = await t.merchant('Neighbour Shop');
    writeFileSync(join((await t.stage.ensureUserDirs(other.login.username)).inbound, 'secret.json'), '{}');
    expect((await sftp(login, [`ls /../${other.login.username}/inbound`])).status).not.toBe(0);
    refusedWith('path leads outside the home folder');
    expect((await sftp(login, [`get /${other.login.username}/inbound/secret.json ${join(dir, 'secret.json')}`])).status).not.toBe(0);
    refusedWith('only inbound/ and outbound/ exist here');
    expect(existsSync(join(dir, 'secret.json'))).toBe(false);
  });

  it('refuses to read through a symbolic link placed inside the chroot, and does not list it', async () => {
    symlinkSync('/etc/passwd', join(inbound, 'link.json'));
    symlinkSync('/etc', join(inbound, 'etc'));
    expect((await sftp(login, [`get inbound/link.json ${join(dir, 'link.json')}`])).status).not.toBe(0);
    refusedWith('symbolic links are not followed');
    expect((await sftp(login, [`get inbound/etc/passwd ${join(dir, 'passwd2')}`])).status).not.toBe(0);
    refusedWith('symbolic links are not followed');
    expect(existsSync(join(dir, 'link.json')) || existsSync(join(dir, 'passwd2'))).toBe(false);
    const ls = await sftp(login, ['ls inbound']);
    expect(ls.stdout).not.toMatch(/link\.json|etc/);
  });

  it('refuses uploads into outbound/ and into the home folder itself', async () => {
    const local = join(dir, 'out.json');
    writeFileSync(local, '{}');
    expect((await sftp(login, [`put ${local} outbound/`])).status).not.toBe(0);
    refusedWith('outbound/ is read-only but for removing files');
    expect((await sftp(login, [`put ${local} /out.json`])).status).not.toBe(0);
    refusedWith('only inbound/ and outbound/ exist here');
    expect(readdirSync(join(t.stage.root, login.username, 'outbound'))).toEqual([]);
  });

  it('lets the merchant remove an ack it has read from outbound/, but not one being written, nor rename or make folders there', async () => {
    const outbound = join(t.stage.root, login.username, 'outbound');
    writeFileSync(join(outbound, 'read.json.ack.json'), '{}');
    writeFileSync(join(outbound, '.writing.json.ack.json.0123456789ab.tmp'), '{');
    expect((await sftp(login, ['rm outbound/.writing.json.ack.json.0123456789ab.tmp'])).status).not.toBe(0);
    refusedWith('a file being written cannot be removed');
    expect((await sftp(login, ['rename outbound/read.json.ack.json outbound/x.json'])).status).not.toBe(0);
    expect((await sftp(login, ['mkdir outbound/sub'])).status).not.toBe(0);
    expect((await sftp(login, ['rm outbound/read.json.ack.json'])).status).toBe(0);
    expect(readdirSync(outbound)).toEqual(['.writing.json.ack.json.0123456789ab.tmp']);
    rmSync(join(outbound, '.writing.json.ack.json.0123456789ab.tmp'));
  });

  it('refuses shell, exec and port forwarding: SFTP only', async () => {
    const exec = await ssh(login, ['cat', '/etc/passwd']);
    expect(exec.status).not.toBe(0);
    expect(exec.stdout).toBe('');
    expect(lastAudit('session_refused')).toMatchObject({ username: login.username, reason: 'exec "cat /etc/passwd" is not allowed: SFTP only' });
    expect((await ssh(login, ['-T'])).status).not.toBe(0);
    await waitFor(() => lastAudit('session_refused')?.reason === 'shell is not allowed: SFTP only', { what: 'the shell refused' });
    expect((await ssh(login, ['-W', '127.0.0.1:22'])).status).not.toBe(0);
    await waitFor(() => /port forwarding to 127\.0\.0\.1:22/.test(String(lastAudit('session_refused')?.reason)), { what: 'the port forwarding refused' });
  });

  it('refuses to overwrite or remove a file being ingested', async () => {
    const local = join(dir, 'held.json');
    writeFileSync(local, '{"first":true}');
    expect((await sftp(login, [`put ${local} inbound/`])).status).toBe(0);
    await waitFor(() => release !== undefined, { what: 'held.json handed over' });
    writeFileSync(local, '{"second":true}');
    expect((await sftp(login, [`put ${local} inbound/`])).status).not.toBe(0);
    refusedWith('the file is being ingested');
    expect((await sftp(login, ['rm inbound/held.json'])).status).not.toBe(0);
    refusedWith('the file is being ingested');
    release!();
    await waitFor(() => !t.stage.locks.isBusy(join(inbound, 'held.json')), { what: 'held.json no longer busy' });
    expect((await sftp(login, ['rm inbound/held.json'])).status).toBe(0);
  });

  it('refuses an upload over maxFileSizeBytes and leaves nothing behind', async () => {
    const local = join(dir, 'huge.json');
    writeFileSync(local, Buffer.alloc(100_000, 0x20));
    expect((await sftp(login, [`put ${local} inbound/`])).status).not.toBe(0);
    expect(lastAudit('upload_failed')).toMatchObject({ path: '/inbound/huge.json', reason: 'the file exceeds 65536 bytes' });
    expect(readdirSync(inbound).filter((n) => n.startsWith('.') || n === 'huge.json')).toEqual([]);
  });
});

describe.each(DB_KINDS)('SFTP connection guards on %s', (kind) => {
  let t: TestSftp;
  afterAll(async () => t?.close());

  it('closes a connection from an address in no merchant’s allow list before the SSH handshake', async () => {
    t = await startTestSftp(kind, { authFailuresPerMinute: 3, loginTimeoutMs: 1000, idleTimeoutMs: 1000 });
    const far = await t.merchant('Only Ten Shop', ['10.0.0.0/8']);
    const res = await sftp(far.login, ['ls']);
    expect(res.status).not.toBe(0);
    expect(t.audit().at(-1)).toMatchObject({ event: 'connection_refused', remoteAddress: '127.0.0.1', reason: 'address in no merchant allow list', username: null });
  });

  it('closes a connection that sends no SSH header, and a session idle for idleTimeoutMs', async () => {
    const good = await t.merchant('Idle Shop');
    const started = Date.now();
    const socket = connect(t.stage.port, '127.0.0.1');
    socket.on('data', () => {});
    await new Promise((resolve) => socket.on('close', resolve));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const client = spawn('sftp', [...SSH_OPTIONS, '-P', String(t.stage.port), '-i', good.login.key, '-b', '-', `${good.login.username}@127.0.0.1`]);
    const closed = new Promise((resolve) => client.on('close', resolve));
    // The client reads its next command before it notices the server hung up: keep stdin open until then.
    client.stdin.write('ls\n');
    await waitFor(() => t.audit().some((l) => l.event === 'logout' && l.username === good.login.username), { what: 'the idle session logged out' });
    client.stdin.end('ls\n');
    expect(await closed).not.toBe(0);
    expect(t.audit().filter((l) => l.event === 'logout' && l.username === good.login.username)).toEqual([expect.objectContaining({ reason: 'idle for 1000 ms' })]);
  });

  it('refuses an address outright after authFailuresPerMinute failures, even with a good key', async () => {
    const good = await t.merchant('Local Shop');
    const stranger = sshKey(good.dir, 'stranger');
    for (let i = 0; i < 3; i++) await sftp({ ...good.login, key: stranger.privatePath }, ['ls']);
    expect((await sftp(good.login, ['ls'])).status).not.toBe(0);
    expect(t.audit().at(-1)).toMatchObject({ event: 'connection_refused', reason: 'too many refused logins from this address' });
  });
});
