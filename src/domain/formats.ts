// The one Ajv instance of the request model, with the string formats the spec defines (their
// table, checks and words are in format-table.ts, which loads no Ajv).
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { FORMATS } from './format-table.ts';

export { FORMAT_CHECKS, FORMAT_WORDS, isCardNumber, isUuid } from './format-table.ts';

// allErrors: every problem of an entry is reported at once (it costs only on failure).
// verbose: errors carry their schema, so range messages can state both bounds.
// messages: false: the model writes its own words (see field-errors.ts).
// unicode: false: string lengths by .length. The only length rule is minLength 1 (not
// empty), where code units and code points agree, and counting code points cost about a
// third of the validator's time in the model benchmark. Ajv marks the option deprecated
// (it still works in Ajv 8) and says so once at start-up; that one notice is dropped.
const UNICODE_NOTICE = 'DEPRECATED: option unicode';
const logger = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (!String(args[0]).startsWith(UNICODE_NOTICE)) console.warn(...args);
  },
  error: console.error,
};
export const ajv = new Ajv({ allErrors: true, verbose: true, messages: false, strict: true, coerceTypes: false, unicode: false, logger });
for (const [name, def] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: def.validate });

/** Compiles a schema once; callers keep the result at module level. */
export function compile<T>(schema: TSchema): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}
