// The sandbox's ready-to-upload batch: at every start, for the demo merchant, a small batch
// file with its real mid and a fresh authorizationToken, an SSH key registered for its SFTP
// user, a known_hosts file holding this daemon's host keys, and the one `sftp` line that
// uploads it. A newcomer edits nothing: `npm start`, paste the line, read outbound/.
// Everything lives in <dataDir>/demo/ (0700), beside the embedded database it belongs to.
// The file names its cards by vault token, as a merchant's own batch would: no card number,
// not even a test card's, is written to disk.
import { chmod, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { Vault } from '../vault/service.ts';
import type { MerchantService } from './service.ts';
import { createTokenService } from '../auth/tokens.ts';
import { KEY_TYPES, readableKeyPair } from '../sftp/host-keys.ts';
import { hostKeyDir, userDirs } from '../sftp/paths.ts';
import { writeBatch, type BatchOptions } from '../../samples/generate-batch.ts';
import { sandboxTestCards, type TestCard, type TestCardList } from '../vault/test-cards.ts';

/** What onboarding takes of the core the daemon opened (src/core.ts, a floor above). */
export interface DemoCore {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
  vault: Vault;
  merchants: MerchantService;
}

export interface DemoSftp {
  host: string;
  port: number;
  /** The SFTP data root, holding the host keys and the merchants' homes. */
  root: string;
}

/**
 * One entry per sandbox behaviour worth watching: approved at the first retry, after declines,
 * after an issuer outage, on the payer's payday, after a Mastercard "retry after" advice; and a
 * lost card, which waits for an updated card in sandbox (ends EXPIRED at once with card updates
 * off: docs/engine.md "Card updates"). The cards themselves come from the sandbox's own list
 * (samples/test-cards.json), the one source of their numbers and outcomes.
 */
const DEMO_BEHAVIOURS: ((o: TestCard['processor']) => boolean)[] = [
  (o) => o.outcome === 'approve',
  (o) => o.outcome === 'approve_after',
  (o) => o.outcome === 'issuer_outage_then_approve',
  (o) => o.outcome === 'approve_on_payday',
  (o) => o.outcome === 'retry_after',
  (o) => o.outcome === 'decline' && 'reason' in o && o.reason === 'lost_or_stolen',
];

export function demoCards(list: TestCardList = sandboxTestCards()): TestCard[] {
  return DEMO_BEHAVIOURS.flatMap((wanted) => list.cards.find((c) => wanted(c.processor)) ?? []);
}

/**
 * The batch's token outlives the configured access-token lifetime (10 minutes by default),
 * so the file still uploads after a coffee; it is sandbox-only and readable by this user only.
 */
const DEMO_TOKEN_SECONDS = 86_400;

export function demoDir(dataDir: string): string {
  return join(resolve(dataDir), 'demo');
}

/** The demo merchant's mid, remembered so later starts find it (undefined: none was made here). */
export async function rememberedDemoMid(dataDir: string): Promise<string | undefined> {
  try {
    const { mid } = JSON.parse(await readFile(join(demoDir(dataDir), 'merchant.json'), 'utf8')) as { mid?: unknown };
    return typeof mid === 'string' ? mid : undefined;
  } catch {
    return undefined;
  }
}

export async function rememberDemoMid(dataDir: string, mid: string): Promise<void> {
  await mkdir(demoDir(dataDir), { recursive: true, mode: 0o700 });
  await writeFile(join(demoDir(dataDir), 'merchant.json'), `${JSON.stringify({ mid })}\n`, { mode: 0o600 });
}

/** The address a local client dials: a wildcard listener is reached on the loopback. */
export function dialHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

/** The name OpenSSH looks a host up by in known_hosts: `[host]:port` unless the port is 22. */
function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Single-quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The demo SSH key, made once (0600, as OpenSSH insists); returns its private key's path. */
async function demoKey(dir: string): Promise<{ path: string; publicText: string }> {
  const path = join(dir, 'id_ed25519');
  try {
    return { path, publicText: await readFile(`${path}.pub`, 'utf8') };
  } catch {
    const pair = readableKeyPair(KEY_TYPES[0]);
    await writeFile(path, pair.private, { mode: 0o600 });
    await chmod(path, 0o600);
    const publicText = `${pair.public.trim()} rescued-demo\n`;
    await writeFile(`${path}.pub`, publicText, { mode: 0o644 });
    return { path, publicText };
  }
}

/** known_hosts for this daemon's address, from its own host keys: no prompt, no trust on first use. */
async function writeKnownHosts(dir: string, sftp: DemoSftp): Promise<string> {
  const keysDir = hostKeyDir(sftp.root);
  const pubs = (await readdir(keysDir)).filter((f) => f.endsWith('.pub')).sort();
  const name = knownHostsName(dialHost(sftp.host), sftp.port);
  const lines = await Promise.all(pubs.map(async (f) => `${name} ${(await readFile(join(keysDir, f), 'utf8')).trim().split(/\s+/).slice(0, 2).join(' ')}`));
  const path = join(dir, 'known_hosts');
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return path;
}

/** The demo cards as vault tokens of the merchant (tokenizing is idempotent: the same tokens each start). */
async function demoTokens(core: DemoCore, merchantId: string): Promise<NonNullable<BatchOptions['cards']>> {
  const year = new Date().getUTCFullYear() + 3;
  const cards = [];
  for (const c of demoCards()) {
    const { card } = await core.vault.tokenize(merchantId, { number: c.number, month: 12, year, firstName: 'Jane', lastName: 'Doe' });
    cards.push({ cardNumber: card.token, token: true, bin: card.bin, last4: card.last4, brand: card.brand ?? c.brand, month: card.month, year: card.year });
  }
  return cards;
}

async function writeSampleFile(dir: string, ids: { mid: string; siteId: string | undefined }, token: string, cards: BatchOptions['cards']): Promise<string> {
  for (const old of (await readdir(dir)).filter((f) => /^sample-.*\.json$/.test(f))) await rm(join(dir, old), { force: true });
  const runId = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const path = join(dir, `sample-${runId}.json`);
  const pass = new PassThrough();
  const done = pipeline(pass, createWriteStream(path, { mode: 0o600 }));
  const batch = { entries: cards?.length ?? 0, mid: ids.mid, siteId: ids.siteId, authorizationToken: `Bearer ${token}`, cardTokens: [''], cards };
  await writeBatch(pass, { ...batch, runId: `demo-${runId}-${randomUUID().slice(0, 4)}` });
  pass.end();
  await done;
  return path;
}

export interface DemoBatch {
  file: string;
  key: string;
  knownHosts: string;
  username: string;
  outbound: string;
  tokenExpiresAt: Date;
  /** The one command line that uploads the file. */
  command: string;
}

/** Writes a fresh sample batch for the demo merchant; undefined when it is gone or disabled. */
export async function writeDemoBatch(core: DemoCore, mid: string, sftp: DemoSftp): Promise<DemoBatch | undefined> {
  const merchant = await core.merchants.show(mid).catch(() => undefined);
  const clientId = merchant?.apiClients[0]?.clientId;
  if (!merchant || merchant.status !== 'active' || !clientId || !merchant.sftp) return undefined;
  const dir = demoDir(core.config.dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const key = await demoKey(dir);
  await core.merchants.addKey(mid, key.publicText);
  const { auth } = core.config;
  const tokens = createTokenService({ signingKeys: auth.signingKeys, activeSigningKeyId: auth.activeSigningKeyId, issuer: auth.issuer, lifetimeSeconds: DEMO_TOKEN_SECONDS, isClientActive: async () => true });
  const merchantId = (await core.merchants.byMid(mid)).id;
  const issued = await tokens.issue({ merchantId, mid, clientId });
  const file = await writeSampleFile(dir, { mid, siteId: merchant.sites[0]?.siteId }, issued.token, await demoTokens(core, merchantId));
  const knownHosts = await writeKnownHosts(dir, sftp);
  const username = merchant.sftp.username;
  const command = [
    `echo ${shellQuote(`put ${file} inbound/`)} |`,
    `sftp -b - -P ${sftp.port} -i ${shellQuote(key.path)} -o IdentitiesOnly=yes -o UserKnownHostsFile=${shellQuote(knownHosts)}`,
    `${username}@${dialHost(sftp.host).includes(':') ? `[${dialHost(sftp.host)}]` : dialHost(sftp.host)}`,
  ].join(' ');
  return { file, key: key.path, knownHosts, username, outbound: userDirs(sftp.root, username).outbound, tokenExpiresAt: new Date(issued.expiresAtMs), command };
}

export function demoBatchLines(batch: DemoBatch): string[] {
  return [
    `  A sample batch for the demo merchant (${demoCards().length} rebills on sandbox test cards; its token is valid until`,
    `  ${batch.tokenExpiresAt.toISOString()}, and every start writes a fresh one): ${batch.file}`,
    '  Upload it with:',
    `    ${batch.command}`,
    `  Then watch ${batch.outbound}/ for ${batch.file.split('/').pop()}.ack.json (at once) and .results.json`,
    '  (when every rebill is final), or GET /v1/batches with the access token.',
    '',
  ];
}
