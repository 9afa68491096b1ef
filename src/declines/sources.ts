// Which table reads a decline's code: `responseCodeSource` is free text from the merchant
// ("Stripe", "STRIPE", "Authorize.Net", "NA", a processor or network name...). Known gateways
// get their own table; everything else is read as ISO 8583 when the code looks like a DE39
// value and by its description otherwise (DESIGN.md §3: ISO 8583 is the default table).
import type { Row } from './reasons.ts';
import type { DeclineTable } from './table.ts';
import { looksLikeIsoCode, lookupIso, normaliseIsoCode } from './iso8583.ts';
import * as TABLES from './tables/index.ts';

export type GatewaySource = keyof typeof TABLES;
export type TableSource = GatewaySource | 'iso8583';
export type ClassificationSource = TableSource | 'text' | 'default';

// Names are compared lower-cased with everything but letters and digits removed, so
// "Authorize.Net", "authorize-net" and "AUTHORIZENET" are one name.
const BY_NAME = new Map<string, DeclineTable & { name: GatewaySource }>();
for (const [key, table] of Object.entries(TABLES)) {
  // tables/index.ts exports each table under its own name, which routing compares with account types.
  if (table.name !== key) throw new Error(`declines/tables/index.ts exports the ${table.name} table as ${key}`);
  for (const alias of [table.name, ...table.aliases]) BY_NAME.set(alias, table as DeclineTable & { name: GatewaySource });
}

export function sourceKey(responseCodeSource: string | null | undefined): string {
  return (responseCodeSource ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The gateway a source names, if any; ISO, networks, processors and "NA" name none. */
export function gatewayOf(responseCodeSource: string | null | undefined): GatewaySource | undefined {
  return BY_NAME.get(sourceKey(responseCodeSource))?.name;
}

export interface TableMatch {
  source: TableSource;
  code: string;
  row: Row;
  /** The raw ISO code the gateway code stands for, where the gateway documents one. */
  impliedIso?: string;
}

/** Look the code up in the table its source names; undefined sends the caller to free text. */
export function lookupCode(responseCodeSource: string | null | undefined, responseCode: string | null | undefined): TableMatch | undefined {
  const code = (responseCode ?? '').trim();
  if (code === '') return undefined;
  const table = BY_NAME.get(sourceKey(responseCodeSource));
  if (table === undefined) return lookupIsoMatch(code);
  const m = table.lookup(code);
  if (!m) return undefined;
  return m.networkCode ? { source: table.name, code, row: m.row, impliedIso: m.networkCode } : { source: table.name, code, row: m.row };
}

export function lookupIsoMatch(code: string): TableMatch | undefined {
  if (!looksLikeIsoCode(code)) return undefined;
  const row = lookupIso(code);
  return row ? { source: 'iso8583', code: normaliseIsoCode(code), row } : undefined;
}

/**
 * The ISO 8583 code a connector shows for its gateway's own code (`rawCode`), when the gateway
 * did not pass the network's: the table's, '05' (do not honor) when the code is unknown.
 */
export function isoCodeFor(gateway: GatewaySource, rawCode: string | undefined): string {
  return (rawCode === undefined ? undefined : TABLES[gateway].lookup(rawCode)?.iso) ?? '05';
}
