// processor.gatewayUrls through the real `rescued serve`: in production without
// processor.acknowledgeGatewayUrls the daemon does not start (exit 78, one line naming the key
// and where the charges would go); with it, and in sandbox mode, it starts and its log says at
// start which account types are overridden and where their charges go.
import { describe, expect, it } from 'vitest';
import { seededDataDir, startDaemon } from '../helpers/daemon.ts';
import { key32 } from '../helpers/keys.ts';

const URLS = { stripe: 'http://127.0.0.1:12111/', adyen: 'https://127.0.0.1:8443/v72' };
const WARNING = 'processor.gatewayUrls overrides the gateway of stripe, adyen accounts: their charges and credentials go to http://127.0.0.1:12111, https://127.0.0.1:8443/v72';

const common = (): NodeJS.ProcessEnv => ({
  RESCUED_DATA_DIR: seededDataDir('rescued-gateway-urls-'), RESCUED_HTTP_PORT: '0', RESCUED_SFTP_ENABLED: 'false',
  RESCUED_PROCESSOR_GATEWAY_URLS: JSON.stringify(URLS),
});
const production = (): NodeJS.ProcessEnv => ({
  ...common(), RESCUED_MODE: 'production',
  RESCUED_AUTH_SIGNING_KEYS: JSON.stringify({ k1: key32() }), RESCUED_AUTH_ACTIVE_SIGNING_KEY_ID: 'k1',
  RESCUED_VAULT_KEYS: JSON.stringify({ v1: key32() }), RESCUED_VAULT_ACTIVE_KEY_ID: 'v1', RESCUED_VAULT_FINGERPRINT_KEY: key32(),
});

/** The daemon's JSON log line with this message, once it is printed. */
async function logged(daemon: ReturnType<typeof startDaemon>, msg: string): Promise<Record<string, unknown>> {
  await daemon.waitFor(new RegExp(`"msg":"${msg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
  return daemon.stdout().split('\n').filter((l) => l.includes(msg)).map((l) => JSON.parse(l) as Record<string, unknown>)[0]!;
}

describe('processor.gatewayUrls at rescued serve', () => {
  it('production without the acknowledgement: no start, exit 78, one line naming the key', async () => {
    const daemon = startDaemon(production());
    expect((await daemon.exited).code).toBe(78);
    expect(daemon.stderr()).toBe(
      'rescued: configuration error: processor.gatewayUrls: set in production mode for stripe, adyen: every charge of those account types, and their secret keys, would go to http://127.0.0.1:12111, https://127.0.0.1:8443/v72 instead of the gateway. Remove it, or set processor.acknowledgeGatewayUrls to true if that is meant\n',
    );
    expect(daemon.stdout()).not.toContain('stage started');
  });

  it.each([
    ['production with the acknowledgement', () => ({ ...production(), RESCUED_PROCESSOR_ACKNOWLEDGE_GATEWAY_URLS: 'true' })],
    ['sandbox', common],
  ])('%s: starts, and warns at start naming each overridden type and its URL', async (_what, env) => {
    const daemon = startDaemon(env());
    const warning = await logged(daemon, WARNING);
    expect(warning).toMatchObject({ level: 'warn', component: 'processor', gatewayUrls: { stripe: 'http://127.0.0.1:12111', adyen: 'https://127.0.0.1:8443/v72' } });
    await daemon.waitFor(/"stage":"http".*"msg":"stage started"/);
  });
});
