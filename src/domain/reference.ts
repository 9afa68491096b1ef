// Code lists the model checks against, taken from maintained data packages rather than
// typed by hand: ISO 3166-1 alpha-2 from i18n-iso-countries, ISO 4217 (list one) from
// currency-codes. Built once at module load into Sets so a check is one hash look-up.
import { createRequire } from 'node:module';
// The package's library alone: its main entry (entry-node.js) registers all 78 languages on
// import, which cost every process that validates a field (a CLI command among them) about
// 100 ms of loading and garbage collection for the one language used here.
import countries from 'i18n-iso-countries/index.js';
import currencyCodes from 'currency-codes';

// The English names are what a batch file carries in cardCountry ("United States"); the
// package ships them as JSON beside its code, so they are loaded the way it documents.
const require = createRequire(import.meta.url);
countries.registerLocale(require('i18n-iso-countries/langs/en.json'));

export const COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(countries.getAlpha2Codes()));
export const CURRENCY_CODES: ReadonlySet<string> = new Set(currencyCodes.codes());

// Every English name and alternative spelling the package knows ("United States", "USA",
// "U.S.A."), lower-cased, to its code: one look-up instead of the package's linear scan.
const CODE_BY_NAME: ReadonlyMap<string, string> = new Map(
  Object.entries(countries.getNames('en', { select: 'all' })).flatMap(([code, names]) =>
    names.map((name) => [name.toLowerCase(), code] as const),
  ),
);

/** The alpha-2 code of an English country name, case-insensitive; undefined if unknown. */
export function countryCodeFromName(name: string): string | undefined {
  return CODE_BY_NAME.get(name.trim().toLowerCase());
}
