// SSRF guard: which destinations a webhook may have, checked on resolved addresses, and a
// connection pinned to the address that was checked.
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhookUrl, pinnedLookup, refusedRange, resolveDestination, type Resolver } from '../../../src/webhooks/url-safety.ts';
import { createPoster } from '../../../src/webhooks/post.ts';

const fixed = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('refusedRange', () => {
  it.each([
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'],
    ['169.254.169.254', 'linkLocal'], ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'], ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'], ['255.255.255.255', 'broadcast'],
    ['::ffff:10.0.0.1', 'private'], ['::ffff:127.0.0.1', 'loopback'],
  ])('production refuses %s (%s)', (address, range) => {
    expect(refusedRange(address, 'production')).toBe(range);
  });

  // ipaddr.js calls these `unicast`; none is a global unicast destination.
  it.each([
    ['64:ff9b:1::a9fe:a9fe', 'nat64LocalUse'], ['::7f00:1', 'ipv4Compatible'], ['::a9fe:a9fe', 'ipv4Compatible'],
    ['fec0::1', 'siteLocal'], ['5f00::1', 'srv6'], ['3fff::1', 'documentation'], ['4000::1', 'nonGlobal'], ['e000::1', 'nonGlobal'],
  ])('production and sandbox refuse %s (%s)', (address, range) => {
    expect(refusedRange(address, 'production')).toBe(range);
    expect(refusedRange(address, 'sandbox')).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('production allows the public address %s', (address) => {
    expect(refusedRange(address, 'production')).toBeUndefined();
  });

  it('sandbox allows loopback but nothing else that production refuses', () => {
    expect(refusedRange('127.0.0.1', 'sandbox')).toBeUndefined();
    expect(refusedRange('::1', 'sandbox')).toBeUndefined();
    expect(refusedRange('169.254.169.254', 'sandbox')).toBe('linkLocal');
    expect(refusedRange('10.0.0.1', 'sandbox')).toBe('private');
  });
});

describe('checkWebhookUrl (merchant set-webhook)', () => {
  it('production: https only, no credentials, public resolved addresses', async () => {
    await expect(checkWebhookUrl('https://hooks.example.com/x', 'production', fixed('93.184.215.14'))).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('http://hooks.example.com/x', 'production', fixed('93.184.215.14'))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE', message: 'Webhook URLs must use https in production mode.' });
    await expect(checkWebhookUrl('https://u:p@hooks.example.com/', 'production', fixed('93.184.215.14'))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE' });
    await expect(checkWebhookUrl('not a url', 'production')).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE' });
    await expect(checkWebhookUrl('https://internal.example.com/', 'production', fixed('10.0.0.7'))).rejects.toMatchObject({
      code: 'ERR_WEBHOOK_URL_UNSAFE', message: expect.stringContaining('internal.example.com resolves to 10.0.0.7, which is a private address'),
    });
    await expect(checkWebhookUrl('https://169.254.169.254/latest/meta-data', 'production')).rejects.toMatchObject({ message: expect.stringContaining('169.254.169.254 is a linkLocal address') });
    await expect(checkWebhookUrl('https://[::1]:8443/', 'production')).rejects.toMatchObject({ message: expect.stringContaining('loopback') });
    for (const host of ['[64:ff9b:1::a9fe:a9fe]', '[::7f00:1]', '[fec0::1]', '[5f00::1]']) {
      await expect(checkWebhookUrl(`https://${host}/hook`, 'production')).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE' });
    }
  });

  it('refuses a name with one private address among public ones', async () => {
    await expect(checkWebhookUrl('https://mixed.example.com/', 'production', fixed('93.184.215.14', '192.168.0.10'))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE' });
  });

  it('a name that does not resolve: refused in production, accepted in sandbox', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkWebhookUrl('https://nowhere.example/', 'production', failing)).rejects.toMatchObject({ message: expect.stringContaining('does not resolve (ENOTFOUND)') });
    await expect(checkWebhookUrl('https://nowhere.example/', 'sandbox', failing)).resolves.toBeInstanceOf(URL);
  });

  it('sandbox allows http and localhost', async () => {
    await expect(checkWebhookUrl('http://localhost:9000/hooks', 'sandbox', fixed('127.0.0.1', '::1'))).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('http://127.0.0.1:9000/hooks', 'sandbox')).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('ftp://localhost/', 'sandbox')).rejects.toMatchObject({ code: 'ERR_WEBHOOK_URL_UNSAFE' });
  });
});

describe('delivery-time check', () => {
  it('resolveDestination returns the checked address', async () => {
    await expect(resolveDestination('hooks.example.com', 'production', fixed('93.184.215.14'))).resolves.toEqual({ address: '93.184.215.14', family: 4 });
  });

  it('refuses a name that resolves to an address outside global unicast, at every delivery', async () => {
    for (const address of ['64:ff9b:1::a9fe:a9fe', '::7f00:1', 'fec0::1', '5f00::1']) {
      await expect(resolveDestination('hooks.example.com', 'production', fixed('2606:4700:4700::1111', address))).rejects.toMatchObject({
        code: 'ERR_WEBHOOK_URL_UNSAFE', message: expect.stringContaining(`hooks.example.com resolves to ${address}`),
      });
    }
  });

  it('the pinned lookup answers only the checked address, for one or all', async () => {
    const lookup = pinnedLookup('sandbox', fixed('127.0.0.1', '::1'));
    const one = await new Promise((resolve) => lookup('localhost', {}, (err, address, family) => resolve({ err, address, family })));
    expect(one).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    const all = await new Promise((resolve) => lookup('localhost', { all: true }, (err, list) => resolve({ err, list })));
    expect(all).toEqual({ err: null, list: [{ address: '127.0.0.1', family: 4 }] });
  });

  it('a name that resolves to a forbidden address is never connected to (DNS rebinding)', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    // The first answer is public (as at set-webhook time), the answer at delivery is loopback.
    const answers = [['93.184.215.14'], ['127.0.0.1']];
    const rebinding: Resolver = async () => answers.shift()!.map((address) => ({ address, family: 4 }));
    await checkWebhookUrl(`https://rebind.example:${port}/`, 'production', rebinding);
    const poster = createPoster({ mode: 'production', timeoutMs: 2000, maxSockets: 1, resolve: rebinding });
    const res = await poster.post(new URL(`http://rebind.example:${port}/`), {}, '{}');
    expect(res.statusCode).toBeUndefined();
    expect(res.error).toMatch(/^ERR_WEBHOOK_URL_UNSAFE: rebind.example resolves to 127.0.0.1, which is a loopback address/);
    const literal = await poster.post(new URL(`http://127.0.0.1:${port}/`), {}, '{}');
    expect(literal.error).toMatch(/^ERR_WEBHOOK_URL_UNSAFE: 127.0.0.1 is a loopback address/);
    expect(hits).toBe(0);
    poster.close();
    server.close();
  });

  it('sandbox delivers to localhost through the pinned lookup; a dead port is a connection error', async () => {
    const server = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const poster = createPoster({ mode: 'sandbox', timeoutMs: 2000, maxSockets: 1, resolve: fixed('127.0.0.1') });
    expect((await poster.post(new URL(`http://localhost:${port}/`), {}, '{}')).statusCode).toBe(204);
    await new Promise<void>((r) => server.close(() => r()));
    poster.close();
    const again = createPoster({ mode: 'sandbox', timeoutMs: 2000, maxSockets: 1, resolve: fixed('127.0.0.1') });
    expect((await again.post(new URL(`http://localhost:${port}/`), {}, '{}')).error).toMatch(/^ERR_WEBHOOK_CONNECTION: ECONNREFUSED/);
    again.close();
  });

  it('a receiver that does not answer in time is a timeout', async () => {
    const server = http.createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const poster = createPoster({ mode: 'sandbox', timeoutMs: 300, maxSockets: 1 });
    const res = await poster.post(new URL(`http://127.0.0.1:${port}/`), {}, '{}');
    expect(res.error).toBe('ERR_WEBHOOK_TIMEOUT: no answer within 300 ms');
    poster.close();
    server.closeAllConnections();
    server.close();
  });
});
