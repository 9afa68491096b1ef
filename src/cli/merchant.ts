// `rescued merchant …`: onboarding and upkeep of merchants. Secrets are printed once, when
// they are made (add, rotate-secret, rotate-tokenization-key), and never again: `show`
// prints no secret.
import { InvalidArgumentError, type Command } from 'commander';
import { keyGraceMs, type MerchantCredentials } from '../merchants/service.ts';
import type { RevokedKey } from '../db/queries/rotate-tokenization-key.ts';
import { readInput, withCore } from './context.ts';
import { RescuedError } from '../errors.ts';

function credentialLines(c: MerchantCredentials): string {
  return [
    `mid:               ${c.mid}`,
    `siteId:            ${c.siteId}`,
    `API client id:     ${c.clientId}`,
    `API client secret: ${c.clientSecret}`,
    `tokenization key:  ${c.tokenizationKey}`,
    `webhook secret:    ${c.webhookSecret}`,
    `SFTP user:         ${c.sftpUsername}`,
    '',
    'The secrets above are shown once and stored only as digests or encrypted; keep them now.',
  ].join('\n');
}

function previousKeyLine(revoked: RevokedKey[], keptMs: number): string {
  if (revoked.length === 0) return 'The merchant had no other live key.';
  const which = revoked.length === 1 ? 'The previous key' : `The ${revoked.length} previous keys`;
  if (keptMs === 0) return `${which}: revoked; a running daemon refuses it within 5 s.`;
  // An earlier rotation's grace may end sooner: the latest end is the one to plan around.
  const last = new Date(Math.max(...revoked.map((k) => k.revokedAt.getTime())));
  return `${which}: still working until ${last.toISOString()}, then refused (within 5 s).`;
}

/** `on` / `off` (also true/false, yes/no) → boolean; anything else is refused. */
function onOff(option: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['on', 'true', 'yes'].includes(v)) return true;
  if (['off', 'false', 'no'].includes(v)) return false;
  throw new RescuedError('ERR_MERCHANT_INVALID_INPUT', `${option} takes on or off, not ${JSON.stringify(value)}.`);
}

export function merchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('onboard and manage merchants');

  merchant
    .command('add')
    .description('create a merchant with its site, API client, tokenization key, webhook secret and SFTP user; prints the credentials once')
    .requiredOption('--name <name>', 'the merchant\'s name')
    .option('--site-url <url>', 'URL of the first site')
    .option('--json', 'print JSON')
    .action((opts: { name: string; siteUrl?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const creds = await core.merchants.add({ name: opts.name, siteUrl: opts.siteUrl });
        core.log.info({ mid: creds.mid, component: 'cli' }, 'merchant created');
        print(opts.json ? creds : credentialLines(creds), opts.json);
      }),
    );

  merchant
    .command('list')
    .description('list merchants')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withCore(program, async (core, print) => {
        const rows = await core.merchants.list();
        print(opts.json ? rows : rows.map((m) => `${m.mid}  ${m.status.padEnd(8)}  ${m.createdAt.toISOString()}  ${m.name}`).join('\n') || '(no merchants)', opts.json);
      }),
    );

  merchant
    .command('show <mid>')
    .description('show a merchant as JSON: sites, API client ids, webhook, SFTP keys and allowed addresses (no secrets)')
    .action((mid: string) => withCore(program, async (core, print) => print(await core.merchants.show(mid), true)));

  merchant
    .command('disable <mid>')
    .description('disable a merchant: its tokens stop working within seconds, new tokens are refused')
    .action((mid: string) =>
      withCore(program, async (core, print) => {
        await core.merchants.disable(mid);
        core.log.info({ mid, component: 'cli' }, 'merchant disabled');
        print(`merchant ${mid} disabled`);
      }),
    );

  merchant
    .command('add-key <mid> <publicKeyFile>')
    .description('register an OpenSSH public key for the merchant\'s SFTP user')
    .action((mid: string, file: string) =>
      withCore(program, async (core, print) => {
        const key = await core.merchants.addKey(mid, await readInput(program, file));
        print(`${key.added ? 'added' : 'already registered'}: ${key.algorithm} ${key.fingerprint}${key.comment ? ` ${key.comment}` : ''}`);
      }),
    );

  merchant
    .command('allow-ip <mid> <cidr>')
    .description('allow an SFTP source address or CIDR range for the merchant')
    .action((mid: string, cidr: string) =>
      withCore(program, async (core, print) => {
        const res = await core.merchants.allowIp(mid, cidr);
        print(`${res.added ? 'allowed' : 'already allowed'}: ${res.cidr}`);
      }),
    );

  merchant
    .command('set <mid>')
    .description('change the merchant\'s rescue options; prints them all as they now are')
    .option('--cascade-other-cards <on|off>', 'an order whose card ends hard continues on the payer\'s other stored cards (default off)')
    .option('--json', 'print JSON')
    .action((mid: string, opts: { cascadeOtherCards?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const settings = { ...(opts.cascadeOtherCards !== undefined ? { cascadeOtherCards: onOff('--cascade-other-cards', opts.cascadeOtherCards) } : {}) };
        const now = await core.merchants.setSettings(mid, settings);
        core.log.info({ mid, component: 'cli', ...settings }, 'merchant settings changed');
        print(opts.json ? now : `cascade to the payer's other cards: ${now.cascadeOtherCards ? 'on' : 'off'}`, opts.json);
      }),
    );

  merchant
    .command('set-webhook <mid> <url>')
    .description('set the URL that receives the merchant\'s webhooks (https only in production)')
    .action((mid: string, url: string) =>
      withCore(program, async (core, print) => print(`webhook URL set: ${await core.merchants.setWebhook(mid, url)}`)),
    );

  merchant
    .command('set-card-updates <mid> <setting>')
    .description('whether the merchant\'s orders whose card must change (expired, lost or stolen, closed, invalid number, Mastercard MAC 01) wait for an updated card until their expiryDateUtc (on) or end EXPIRED at once (off); default: the configuration\'s engine.awaitUpdatedCard. The engine reads it within a minute')
    .action((mid: string, setting: string) =>
      withCore(program, async (core, print) => {
        if (setting !== 'on' && setting !== 'off' && setting !== 'default') throw new InvalidArgumentError('setting must be on, off or default');
        await core.merchants.setCardUpdates(mid, setting);
        print(`card updates: ${setting}`);
      }),
    );

  merchant
    .command('rotate-secret <mid>')
    .description('replace the webhook signing secret (the old one keeps signing beside it for 24 hours); with --api-client, replace the API client instead')
    .option('--api-client', 'rotate the OAuth2 client id and secret; the old client stops working at once')
    .action((mid: string, opts: { apiClient?: boolean }) =>
      withCore(program, async (core, print) => {
        if (opts.apiClient) {
          const c = await core.merchants.rotateApiSecret(mid);
          print(`API client id:     ${c.clientId}\nAPI client secret: ${c.clientSecret}\n\nShown once; the previous client no longer works.`);
          return;
        }
        const r = await core.merchants.rotateWebhookSecret(mid);
        print(`webhook secret: ${r.webhookSecret}\n\nShown once; the previous secret also signs until ${r.previousValidUntil.toISOString()}.`);
      }),
    );

  merchant
    .command('rotate-tokenization-key <mid>')
    .description('make a new tokenization key (printed once) and revoke the old one: at once, or after --keep-old-for')
    .option('--keep-old-for <duration>', 'keep the old key working this long (90m, 24h, 7d; at most 30d) while checkout pages move to the new one')
    .option('--json', 'print JSON')
    .action((mid: string, opts: { keepOldFor?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const keptMs = keyGraceMs(opts.keepOldFor);
        const r = await core.merchants.rotateTokenizationKey(mid, keptMs);
        core.log.info({ mid, component: 'cli', revoked: r.revoked.length, keepOldForMs: keptMs }, 'tokenization key rotated');
        if (opts.json) return print({ tokenizationKey: r.tokenizationKey, previousKeys: r.revoked.map((k) => ({ createdAt: k.createdAt, validUntil: k.revokedAt })) }, true);
        print(`tokenization key: ${r.tokenizationKey}\n\nShown once. ${previousKeyLine(r.revoked, keptMs)}`);
      }),
    );
}
