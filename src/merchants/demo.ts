// First start in sandbox mode with an empty database: create a demo merchant and show how
// to use it, so `npm start` on a fresh clone is a working system. The banner goes to
// stderr, keeping stdout pure JSON log lines; it is printed once, when the merchant is made.
import type { Core } from '../core.ts';
import { countMerchants } from '../db/queries/list-merchants.ts';
import type { MerchantCredentials } from './service.ts';

export interface SftpEndpoint {
  host: string;
  port: number;
}

/** The address a local client dials: a wildcard listener is reached on the loopback. */
function dialHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}

function sftpLines(creds: MerchantCredentials, sftp: SftpEndpoint | undefined): string[] {
  if (!sftp) return [];
  return [
    '  SFTP batch drop (batch files into inbound/; acknowledgements and results in outbound/;',
    '  127.0.0.1 and ::1 are allowed for this merchant). Register your public key first, with the',
    '  daemon stopped (the embedded database serves one process at a time):',
    `    npm run rescued -- merchant add-key ${creds.mid} ~/.ssh/id_ed25519.pub`,
    `    sftp -P ${sftp.port} -i ~/.ssh/id_ed25519 ${creds.sftpUsername}@${dialHost(sftp.host)}`,
    '',
  ];
}

export function demoBanner(creds: MerchantCredentials, httpBase: string, sftp?: SftpEndpoint): string {
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
    ...sftpLines(creds, sftp),
  ].join('\n');
}

export async function ensureDemoMerchant(core: Core, httpBase: string, sftp?: SftpEndpoint): Promise<void> {
  if ((await countMerchants(core.database.db)) > 0) return;
  const creds = await core.merchants.add({ name: 'Demo Merchant', siteUrl: 'https://demo.example' });
  // The demo is tried from the machine it runs on: allow the loopback addresses for SFTP.
  await core.merchants.allowIp(creds.mid, '127.0.0.1');
  await core.merchants.allowIp(creds.mid, '::1');
  core.log.info({ mid: creds.mid, component: 'onboarding' }, 'demo merchant created');
  process.stderr.write(`${demoBanner(creds, httpBase, sftp)}\n`);
}
