// The schema keywords of one field as a JavaScript condition, for the normaliser's checking
// mode (normalise.ts): the canonical value of each field is checked where it is read, so a
// valid input is walked once instead of twice (normalise, then Ajv). The condition states
// exactly what the model's Ajv instance (formats.ts) checks for the same keyword:
// - type: Ajv's own tests (integer: a finite whole number; number: finite);
// - minLength / maxLength: `.length`, as the instance counts with unicode: false;
// - format: the same check from the same table (FORMAT_CHECKS);
// - minimum, maximum and their exclusive forms: plain comparisons.
// A keyword not listed here fails at load, so no rule can be skipped silently; the
// checking mode only ever answers "valid", and any doubt goes to Ajv (validate.ts).
import type { TSchema } from '@sinclair/typebox';
import { FORMAT_CHECKS } from './format-table.ts';

/** Registers a value the generated code needs and returns the name it has there. */
export type Dependency = (value: unknown) => string;

// Keywords that say nothing about validity (Ajv ignores them too).
const ANNOTATIONS: ReadonlySet<string> = new Set(['description', 'title', '$id', '$comment', 'examples']);
const KNOWN: Readonly<Record<string, ReadonlySet<string>>> = {
  object: new Set(['type', 'properties', 'required']),
  array: new Set(['type', 'items', 'minItems', 'maxItems']),
  string: new Set(['type', 'minLength', 'maxLength', 'format']),
  integer: new Set(['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']),
  number: new Set(['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']),
  boolean: new Set(['type']),
};

/** Throws unless every keyword of `schema` (not of its children) is one this file knows. */
export function assertKnownKeywords(schema: TSchema, path: string): void {
  const known = typeof schema.type === 'string' ? KNOWN[schema.type] : undefined;
  if (!known) throw new Error(`${path || 'the schema'}: type ${JSON.stringify(schema.type)} has no fast check`);
  for (const keyword of Object.keys(schema)) {
    if (!known.has(keyword) && !ANNOTATIONS.has(keyword)) {
      throw new Error(`${path || 'the schema'}: keyword ${keyword} has no fast check (teach src/domain/checks.ts)`);
    }
  }
}

const TYPE_TESTS: Readonly<Record<string, (v: string) => string>> = {
  string: (v) => `typeof ${v} === "string"`,
  integer: (v) => `Number.isInteger(${v})`,
  number: (v) => `(typeof ${v} === "number" && Number.isFinite(${v}))`,
  boolean: (v) => `typeof ${v} === "boolean"`,
};

const num = (n: unknown): string => {
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`bound ${String(n)} is not a finite number`);
  return String(n);
};

function formatTest(name: unknown, v: string, dep: Dependency): string {
  const check = typeof name === 'string' ? FORMAT_CHECKS[name] : undefined;
  if (!check) throw new Error(`format ${String(name)} is not one of the model's formats`);
  return check instanceof RegExp ? `${dep(check)}.test(${v})` : `${dep(check)}(${v})`;
}

/**
 * The condition under which the value in variable `v` satisfies a leaf schema (a string,
 * number, integer or boolean), as JavaScript source.
 */
export function leafCondition(schema: TSchema, v: string, dep: Dependency, path: string): string {
  assertKnownKeywords(schema, path);
  const typeTest = TYPE_TESTS[String(schema.type)];
  if (!typeTest) throw new Error(`${path}: ${String(schema.type)} is not a leaf type`);
  const parts = [typeTest(v)];
  if (schema.minLength !== undefined) parts.push(`${v}.length >= ${num(schema.minLength)}`);
  if (schema.maxLength !== undefined) parts.push(`${v}.length <= ${num(schema.maxLength)}`);
  if (schema.minimum !== undefined) parts.push(`${v} >= ${num(schema.minimum)}`);
  if (schema.maximum !== undefined) parts.push(`${v} <= ${num(schema.maximum)}`);
  if (schema.exclusiveMinimum !== undefined) parts.push(`${v} > ${num(schema.exclusiveMinimum)}`);
  if (schema.exclusiveMaximum !== undefined) parts.push(`${v} < ${num(schema.exclusiveMaximum)}`);
  if (schema.format !== undefined) parts.push(formatTest(schema.format, v, dep));
  return parts.join(' && ');
}

/** A leaf schema's condition as a function, for values checked outside generated code. */
export function leafCheck(schema: TSchema, path: string): (value: unknown) => boolean {
  const deps: unknown[] = [];
  const dep: Dependency = (value) => `d${deps.push(value) - 1}`;
  const condition = leafCondition(schema, 'v', dep, path);
  const names = deps.map((_, i) => `d${i}`);
  return new Function(...names, `return function check(v) { return ${condition}; };`)(...deps) as (value: unknown) => boolean;
}
