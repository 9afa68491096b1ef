// First start in sandbox mode with an empty database: create a demo merchant and show how
// to use it, so `npm start` on a fresh clone is a working system. The banner goes to
// stderr, keeping stdout pure JSON log lines; the credentials are printed once, when the
// merchant is made. At every sandbox start, the demo merchant also gets a fresh
// ready-to-upload batch and the `sftp` line that uploads it (demo-batch.ts).
import { countMerchants } from '../db/queries/list-merchants.ts';
import type { MerchantCredentials } from './service.ts';
import { demoBatchLines, dialHost as loopbackFor, rememberDemoMid, rememberedDemoMid, shellQuote, writeDemoBatch, type DemoBatch, type DemoCore, type DemoSftp } from './demo-batch.ts';

export interface SftpEndpoint {
  host: string;
  port: number;
  /** The SFTP data root; with it, the sample batch and its upload line are written too. */
  root?: string;
}

/** The address a local client dials: a wildcard listener is reached on the loopback. */
function dialHost(host: string): string {
  const h = loopbackFor(host);
  return h.includes(':') ? `[${h}]` : h;
}

/** The demo merchant's own SSH key, registered when its sample batch was written (demo-batch.ts). */
export interface DemoKey {
  key: string;
  knownHosts: string;
}

/**
 * How to reach the merchant's SFTP home. With the demo key, the first line works as printed
 * (the key is registered already); another key must be registered first, and the banner says
 * so before the line that needs it.
 */
function sftpLines(creds: MerchantCredentials, sftp: SftpEndpoint | undefined, demoKey: DemoKey | undefined): string[] {
  if (!sftp) return [];
  const target = `${creds.sftpUsername}@${dialHost(sftp.host)}`;
  const own = [
    `    npm run rescued -- merchant add-key ${creds.mid} ~/.ssh/id_ed25519.pub`,
    `    sftp -P ${sftp.port} -i ~/.ssh/id_ed25519 ${target}`,
  ];
  const head = [
    '  SFTP batch drop (batch files into inbound/; acknowledgements and results in outbound/;',
    '  127.0.0.1 and ::1 are allowed for this merchant).',
  ];
  if (!demoKey) return [...head, '  Register your public key first, in another terminal while this daemon runs:', ...own, ''];
  return [
    ...head,
    `  With the demo merchant's key, registered already (${demoKey.key}):`,
    `    sftp -P ${sftp.port} -i ${shellQuote(demoKey.key)} -o IdentitiesOnly=yes -o UserKnownHostsFile=${shellQuote(demoKey.knownHosts)} ${target}`,
    '  With your own key: register it first, in another terminal while this daemon runs, then connect:',
    ...own,
    '',
  ];
}

export function demoBanner(creds: MerchantCredentials, httpBase: string, sftp?: SftpEndpoint, demoKey?: DemoKey): string {
  return [
    '',
    '  rescued sandbox: a demo merchant was created (shown once; stored only as digests)',
    '',
    `    mid                 ${creds.mid}`,
    `    siteId              ${creds.siteId}`,
    `    API client id       ${creds.clientId}`,
    `    API client secret   ${creds.clientSecret}`,
    `    tokenization key    ${creds.tokenizationKey}`,
    `    webhook secret      ${creds.webhookSecret}`,
    `    SFTP user           ${creds.sftpUsername}`,
    '',
    '  Get an access token (either form):',
    `    curl -s -u '${creds.clientId}:${creds.clientSecret}' -d grant_type=client_credentials ${httpBase}/oauth2/token`,
    `    curl -s -H 'content-type: application/json' -d '{"appKey":"${creds.clientId}","appSecret":"${creds.clientSecret}"}' ${httpBase}/oauth2/token`,
    '',
    ...sftpLines(creds, sftp, demoKey),
  ].join('\n');
}

/** The sample batch, or none (no SFTP, or the demo merchant is gone or disabled). */
async function sampleBatch(core: DemoCore, mid: string, sftp: SftpEndpoint | undefined): Promise<DemoBatch | undefined> {
  if (!sftp?.root) return undefined;
  const log = core.log.child({ component: 'onboarding' });
  try {
    const batch = await writeDemoBatch(core, mid, sftp as DemoSftp);
    if (batch) log.info({ mid, file: batch.file, tokenExpiresAt: batch.tokenExpiresAt.toISOString() }, 'demo sample batch written');
    return batch;
  } catch (err) {
    // A convenience for trying the daemon: without it the daemon still serves.
    log.warn({ err, mid }, 'demo sample batch not written');
    return undefined;
  }
}

export async function ensureDemoMerchant(core: DemoCore, httpBase: string, sftp?: SftpEndpoint, write: (text: string) => void = (t) => void process.stderr.write(t)): Promise<void> {
  if ((await countMerchants(core.database.db)) > 0) {
    const mid = await rememberedDemoMid(core.config.dataDir);
    const batch = mid ? await sampleBatch(core, mid, sftp) : undefined;
    const lines = batch ? demoBatchLines(batch) : [];
    if (lines.length) write(`\n  rescued sandbox: demo merchant ${mid}\n${lines.join('\n')}\n`);
    return;
  }
  const creds = await core.merchants.add({ name: 'Demo Merchant', siteUrl: 'https://demo.example' });
  // The demo is tried from the machine it runs on: allow the loopback addresses for SFTP.
  await core.merchants.allowIp(creds.mid, '127.0.0.1');
  await core.merchants.allowIp(creds.mid, '::1');
  await rememberDemoMid(core.config.dataDir, creds.mid);
  core.log.child({ component: 'onboarding' }).info({ mid: creds.mid }, 'demo merchant created');
  const batch = await sampleBatch(core, creds.mid, sftp);
  const lines = batch ? demoBatchLines(batch) : [];
  write(`${demoBanner(creds, httpBase, sftp, batch)}\n${lines.join('\n')}${lines.length ? '\n' : ''}`);
}
