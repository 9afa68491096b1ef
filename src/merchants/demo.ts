// First start in sandbox mode with an empty database: create a demo merchant and show how
// to use it, so `npm start` on a fresh clone is a working system. The banner goes to
// stderr, keeping stdout pure JSON log lines; it is printed once, when the merchant is made.
import type { Core } from '../daemon.ts';
import { countMerchants } from '../db/queries/list-merchants.ts';
import type { MerchantCredentials } from './service.ts';

export function demoBanner(creds: MerchantCredentials, httpBase: string): string {
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
  ].join('\n');
}

export async function ensureDemoMerchant(core: Core, httpBase: string): Promise<void> {
  if ((await countMerchants(core.database.db)) > 0) return;
  const creds = await core.merchants.add({ name: 'Demo Merchant', siteUrl: 'https://demo.example' });
  core.log.info({ mid: creds.mid, component: 'onboarding' }, 'demo merchant created');
  process.stderr.write(`${demoBanner(creds, httpBase)}\n`);
}
