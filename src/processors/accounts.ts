// A merchant's processor accounts (`rescued processor …`): added with credentials checked
// against their type's schema and sealed under the vault key ring (bound to the account's
// id), listed with secrets masked, removed, tested. The credentials leave this module only
// opened for the router; no message ever carries one of their values.
import { randomUUID } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import type { Db } from '../db/client.ts';
import { findMerchantByMid } from '../db/queries/find-merchant.ts';
import { accountAad, activeProcessorAccounts, insertProcessorAccount, removeProcessorAccount, type ProcessorAccountRow } from '../db/queries/processor-accounts.ts';
import { RescuedError } from '../errors.ts';
import { open, seal, type KeyRing } from '../vault/cipher.ts';
import { connectorNames } from '../gateways.ts';
import { ACCOUNT_TYPES, type AccountType } from './connector.ts';
import { ACCOUNT_KINDS, supportedTypes } from './registry.ts';

export { accountAad };

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface AccountView {
  label: string;
  type: AccountType;
  isDefault: boolean;
  createdAt: string;
  /** Secret fields masked (`sk_live_…4242`), the others as set. */
  credentials: Record<string, unknown>;
}

export interface AddAccount {
  type: string;
  label: string;
  isDefault?: boolean;
  credentials: unknown;
}

/** `sk_live_…4242`: the prefix up to the last underscore of the first 8 characters and the last four. */
export function maskSecret(value: string): string {
  if (value.length < 12) return '…';
  const prefix = /^[A-Za-z]+_(?:[a-z]+_)?/.exec(value.slice(0, 9))?.[0] ?? '';
  return `${prefix}…${value.slice(-4)}`;
}

function checkType(type: string, mode: 'sandbox' | 'production'): AccountType {
  // Production has no sandbox accounts: its list of types does not offer one.
  const offered = mode === 'production' ? connectorNames() : ACCOUNT_TYPES.join(', ');
  if (!(ACCOUNT_TYPES as readonly string[]).includes(type)) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', `Unknown processor type "${type.slice(0, 32)}"; types: ${offered}.`);
  if (!ACCOUNT_KINDS[type as AccountType]) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', `The ${type} connector is not available in this version; available: ${supportedTypes().join(', ')}.`);
  if (type === 'sandbox' && mode === 'production') throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', 'sandbox accounts exist only in sandbox mode.');
  return type as AccountType;
}

/** The credentials, checked: errors name the fields, never a value. */
export function checkCredentials(type: AccountType, credentials: unknown): Record<string, unknown> {
  const schema = ACCOUNT_KINDS[type]!.credentials;
  if (Value.Check(schema, credentials)) return credentials as Record<string, unknown>;
  const fields = [...new Set([...Value.Errors(schema, credentials)].map((e) => e.path || '/'))];
  throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', `The ${type} credentials are invalid at ${fields.join(', ')}: expected ${Object.keys((schema as { properties?: object }).properties ?? {}).join(', ') || 'no fields'}.`);
}

/**
 * Production charges real cards: credentials of a gateway's test environment would answer every
 * retry without moving money. Refused when the account is added and when it is tested.
 */
export function checkLiveCredentials(type: AccountType, credentials: Record<string, unknown>, mode: 'sandbox' | 'production'): void {
  if (mode !== 'production') return;
  const test = ACCOUNT_KINDS[type]?.testEnvironment?.(credentials);
  if (test) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_TEST_MODE', `Production mode refuses ${test}: give the account's live credentials (sandbox mode takes test ones).`);
}

export function viewOf(row: ProcessorAccountRow, credentials: Record<string, unknown>): AccountView {
  const secrets = new Set(ACCOUNT_KINDS[row.type]?.secrets ?? []);
  const masked = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, secrets.has(k) && typeof v === 'string' ? maskSecret(v) : v]));
  return { label: row.label, type: row.type, isDefault: row.isDefault, createdAt: row.createdAt.toISOString(), credentials: masked };
}

export function openCredentials(ring: KeyRing, row: ProcessorAccountRow): Record<string, unknown> {
  return JSON.parse(open(ring, row.credentialsSealed, accountAad(row.id)).toString('utf8')) as Record<string, unknown>;
}

export function createAccountService(deps: { db: Db; ring: KeyRing; mode: 'sandbox' | 'production'; now?: () => Date }) {
  const { db, ring } = deps;
  const now = deps.now ?? (() => new Date());

  async function merchantId(mid: string): Promise<string> {
    const m = await findMerchantByMid(db, mid);
    if (!m) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${mid}.`);
    return m.id;
  }

  return {
    async add(mid: string, input: AddAccount): Promise<AccountView> {
      const type = checkType(input.type, deps.mode);
      if (!LABEL.test(input.label)) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', 'A label is 1 to 64 letters, digits, dots, hyphens or underscores, starting with a letter or digit.');
      const credentials = checkCredentials(type, input.credentials);
      checkLiveCredentials(type, credentials, deps.mode);
      // A bridge carries card numbers: in production only over TLS.
      if (type === 'http' && deps.mode === 'production' && !String(credentials.url).startsWith('https://')) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', 'In production mode an HTTP bridge must be reached over https://.');
      const id = randomUUID();
      const merchant = await merchantId(mid);
      const existing = await activeProcessorAccounts(db, merchant);
      if (existing.some((a) => a.label === input.label)) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_EXISTS', `The merchant already has an account labelled ${input.label}.`);
      // The first account of a merchant is its default.
      const isDefault = input.isDefault === true || existing.length === 0;
      const row = { id, merchantId: merchant, type, label: input.label, isDefault, credentialsSealed: seal(ring, JSON.stringify(credentials), accountAad(id)), createdAt: now() };
      await db.transaction((tx) => insertProcessorAccount(tx, row));
      return viewOf({ ...row, removedAt: null }, credentials);
    },
    async list(mid: string): Promise<AccountView[]> {
      const rows = await activeProcessorAccounts(db, await merchantId(mid));
      return rows.map((r) => viewOf(r, openCredentials(ring, r)));
    },
    async remove(mid: string, label: string): Promise<void> {
      if (!(await removeProcessorAccount(db, await merchantId(mid), label, now()))) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_NOT_FOUND', `The merchant has no account labelled ${label.slice(0, 64)}.`);
    },
    async find(mid: string, label: string): Promise<{ row: ProcessorAccountRow; credentials: Record<string, unknown> }> {
      const row = (await activeProcessorAccounts(db, await merchantId(mid))).find((a) => a.label === label);
      if (!row) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_NOT_FOUND', `The merchant has no account labelled ${label.slice(0, 64)}.`);
      return { row, credentials: openCredentials(ring, row) };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
