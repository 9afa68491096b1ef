// The card-data sweep every end-to-end test ends with: after the daemon has stopped, its log
// output, every file under its data folder (inbound/, outbound/, archive, quarantine, the
// embedded database's own files) and every text column of its database are searched for
// the whitelisted test cards' numbers (and any the test names) and for CVVs written next to a
// CVV field name. A PAN may appear masked (first six, last four), never whole; a CVV never.
// Numbers are found by the daemon's own detector (src/card-numbers.ts), so a number written
// with dots, runs of spaces, JSON escapes or full-width digits is found as a plain one is;
// a number glued to letters (`ORD-4111…`), which the detector takes for an identifier, is
// still found by its plain digits.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { openDatabase, pgliteDirFor, type Database } from '../../src/db/client.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';
import { findCardNumbers } from '../../src/card-numbers.ts';
import { silentLog } from './db.ts';

export interface SweepTarget {
  /** The daemon's data folder (RESCUED_DATA_DIR). */
  dataDir: string;
  /** Its PostgreSQL database, when it ran on one; otherwise the folder's PGlite is opened. */
  databaseUrl?: string | undefined;
  /** The database already open in this process (it is searched, and left open). */
  database?: Database;
  /** Everything the daemon (and the CLI) printed. */
  logs: string;
  /** CVVs the test sent, looked for next to a CVV field name. */
  cvvs?: string[];
  /** Card numbers the test sent besides the sandbox's test cards. */
  pans?: string[];
}

const TEST_PANS = sandboxTestCards().cards.map((c) => c.number);
// Where the database may hold a card number in some spelling: 13 digits with at most a few
// characters between them that are not letters (escapes' `\u` and `\t` aside). A superset of
// what the detector finds, in PostgreSQL's regex dialect, so the search reads only those rows.
const MAY_HOLD_NUMBER = '[0-9０-９]([^0-9０-９A-Za-sv-z]{0,16}[0-9０-９]){12}';
// CVV_FIELD in PostgreSQL's regex dialect (case-insensitive with ~*).
const CVV_WORD = `(cvv2?|cvc|verification_?value|securitycode)["']?[[:space:]]*[:=][[:space:]]*["']?[0-9]{3,4}`;
const CVV_FIELD = /(?:cvv2?|cvc|verification_?value|securityCode)["']?\s*[:=]\s*["']?(\d{3,4})\b/gi;

interface Known {
  pans: string[];
  /** Their plain digits, in one pattern: a number the detector takes for an identifier is still one. */
  literal: RegExp;
  cvvs: Set<string>;
}

function known(t: SweepTarget): Known {
  const pans = [...new Set([...TEST_PANS, ...(t.pans ?? [])])];
  return { pans, literal: new RegExp(pans.join('|'), 'g'), cvvs: new Set(t.cvvs ?? []) };
}

function hitsIn(text: string, where: string, k: Known): string[] {
  const hits: string[] = [];
  for (const [pan] of text.matchAll(k.literal)) hits.push(`${where}: card ending ${pan.slice(-4)} in clear`);
  for (const n of findCardNumbers(text)) {
    const pan = k.pans.find((p) => n.digits.includes(p));
    if (pan) hits.push(`${where}: card ending ${pan.slice(-4)} in clear`);
  }
  for (const m of text.matchAll(CVV_FIELD)) if (k.cvvs.has(m[1]!)) hits.push(`${where}: a CVV next to ${m[0].split(/["':=\s]/)[0]}`);
  return hits;
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.isDirectory()) yield* files(path);
    else if (st?.isFile()) yield path;
  }
}

async function databaseHits(t: SweepTarget, k: Known): Promise<string[]> {
  const database = t.database ?? (await openDatabase({ url: t.databaseUrl ?? '', pgliteDir: t.databaseUrl ? undefined : pgliteDirFor(t.dataDir), poolSize: 1, log: silentLog }));
  try {
    const rows = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Array<Record<string, string>>;
    const columns = rows(await database.db.execute(sql`select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb')`));
    const hits: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const v = sql`${sql.identifier(column!)}::text`;
      const values = rows(await database.db.execute(sql`select ${v} as v from ${sql.identifier(table!)} where ${v} ~ ${MAY_HOLD_NUMBER} or ${v} ~* ${CVV_WORD}`));
      for (const { v } of values) hits.push(...hitsIn(v!, `${table}.${column}`, k));
    }
    return hits;
  } finally {
    if (!t.database) await database.close();
  }
}

/** Every place a test card's number or CVV sits in clear; empty is the only good answer. */
export async function cardDataHits(t: SweepTarget): Promise<string[]> {
  const k = known(t);
  const hits = hitsIn(t.logs, 'log', k);
  for (const path of files(t.dataDir)) hits.push(...hitsIn(readFileSync(path, 'latin1'), relative(t.dataDir, path), k));
  hits.push(...(await databaseHits(t, k)));
  return [...new Set(hits)];
}

export async function expectNoCardData(t: SweepTarget): Promise<void> {
  expect(await cardDataHits(t)).toEqual([]);
}
