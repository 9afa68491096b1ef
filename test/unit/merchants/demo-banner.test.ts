// The sandbox start banner says what is true of the SFTP drop: with the demo merchant's own
// key (registered by the daemon when it wrote the sample batch) the printed line connects at
// once; any other key must be registered first, and the banner says so before the line that
// needs it. Without the demo key (no sample batch written), registering comes first.
import { describe, expect, it } from 'vitest';
import { demoBanner } from '../../../src/merchants/demo.ts';

const creds = {
  mid: '4efb74b4-8a1c-4902-901b-55000b3f612d', siteId: 's', clientId: 'rc_x', clientSecret: 'rcs_x',
  tokenizationKey: 'rtk_x', webhookSecret: 'whsec_x', sftpUsername: 'demo-merchant-4efb74b4',
};
const sftp = { host: '0.0.0.0', port: 2222, root: '/data/sftp' };
const demoKey = { key: '/data/demo/id_ed25519', knownHosts: '/data/demo/known_hosts' };

const lines = (text: string) => text.split('\n');
const index = (text: string, part: string) => lines(text).findIndex((l) => l.includes(part));

describe('the demo banner\'s SFTP lines', () => {
  it('with the demo key: its sftp line is said to work as it is; only another key is to be registered', () => {
    const text = demoBanner(creds, 'http://127.0.0.1:8080', sftp, demoKey);
    expect(text).not.toContain('Register your public key first');
    const registered = index(text, 'registered already (/data/demo/id_ed25519)');
    const demoLine = index(text, 'sftp -P 2222 -i /data/demo/id_ed25519 -o IdentitiesOnly=yes -o UserKnownHostsFile=/data/demo/known_hosts demo-merchant-4efb74b4@127.0.0.1');
    const ownHeader = index(text, 'With your own key: register it first');
    const addKey = index(text, `merchant add-key ${creds.mid} ~/.ssh/id_ed25519.pub`);
    const ownLine = index(text, 'sftp -P 2222 -i ~/.ssh/id_ed25519 demo-merchant-4efb74b4@127.0.0.1');
    expect([registered, demoLine, ownHeader, addKey, ownLine].every((i) => i >= 0)).toBe(true);
    expect(registered).toBeLessThan(demoLine);
    expect(demoLine).toBeLessThan(ownHeader);
    expect(ownHeader).toBeLessThan(addKey);
    expect(addKey).toBeLessThan(ownLine);
  });

  it('without it: register first, then the sftp line with one\'s own key', () => {
    const text = demoBanner(creds, 'http://127.0.0.1:8080', sftp);
    expect(index(text, 'Register your public key first')).toBeLessThan(index(text, 'merchant add-key'));
    expect(index(text, 'merchant add-key')).toBeLessThan(index(text, 'sftp -P 2222 -i ~/.ssh/id_ed25519'));
    expect(text).not.toContain('registered already');
  });

  it('without SFTP: no SFTP lines at all', () => {
    expect(demoBanner(creds, 'http://127.0.0.1:8080')).not.toContain('sftp');
  });
});
