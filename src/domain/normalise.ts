// Normalisation before validation: one pass over the input that yields the canonical form
// the schemas describe, copying only the objects that change. Real clients send the
// spellings the spec's own listings use (IsDeclined, isDecline, SiteUrl, zipCode,
// ExpirationMonth), null for absent optional fields, numbers as numeric strings where one
// listing types them as string, and dates as ISO 8601 or RFC 1123 (DESIGN.md §2 "Leniency").
//
// Keys are matched case-insensitively against the fields of the object they appear in,
// which covers capitalised keys at every level; the key maps are built once from the
// schemas, so a new schema field is recognised without touching this file.
//
// Unknown fields are dropped and reported as WARN_MODEL_UNKNOWN_FIELD: real clients send
// extra fields, and rejecting a rescue for one would lose the rescue, while the warning
// lets a merchant spot a misspelt field. They are never stored.
import type { TSchema } from '@sinclair/typebox';
import type { FieldError } from '../error-types.ts';
import { MODEL_WARNINGS } from './codes.ts';
import { toCalendarDate, toUtcDateTime } from './dates.ts';
import { countryCodeFromName } from './reference.ts';
import { assertKnownKeywords, leafCheck } from './checks.ts';
import { compileShape, INVALID, slotOf, type Norm, type Note, type Shape, type Slot } from './shape-code.ts';

export type Coercer = (value: unknown) => unknown;

export interface ShapeOptions {
  /** Leaf coercions by canonical path; array items are written `orderItems[].quantity`. */
  readonly coerce?: Readonly<Record<string, Coercer>>;
  /** Other spellings by canonical path of the field: `{ isDecline: 'isDeclined' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Top-level keys that are neither fields nor unknown (the batch header's `requests`). */
  readonly ignoreTopLevel?: readonly string[];
}

const INTEGER_TEXT = /^\s*-?\d{1,15}\s*$/;

// Already an upper-case code (the common case): nothing to allocate.
function isUpperCode(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return false;
  }
  return true;
}

export const coercers = {
  /** Digits in a string become an integer; anything else is left for the schema to judge. */
  integer: (v) => (typeof v === 'string' && INTEGER_TEXT.test(v) ? Number(v) : v),
  dateTime: (v) => (typeof v === 'string' ? (toUtcDateTime(v) ?? v) : v),
  date: (v) => (typeof v === 'string' ? (toCalendarDate(v) ?? v) : v),
  lowerCase: (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  /** Short codes (country, currency, state) upper-cased; longer text is left as written. */
  code: (v) => (typeof v === 'string' && v.length <= 4 && !isUpperCode(v) ? v.trim().toUpperCase() : v),
  /** An alpha-2 code, or an English country name mapped to one (the batch layout's "United States"). */
  country: (v) => {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    return t.length === 2 ? t.toUpperCase() : (countryCodeFromName(t) ?? v);
  },
  /** "Bearer <token>" (the layout's form) or the bare token → the bare token. */
  bearer: (v) => (typeof v === 'string' ? v.trim().replace(/^bearer(?:\s+|$)/i, '') : v),
  /** A Mastercard advice code as a number (21) or one digit ("3") → two digits ("21", "03"). */
  adviceCode: (v) => {
    const t = typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 99 ? String(v) : typeof v === 'string' ? v.trim() : undefined;
    if (t === undefined) return v;
    return /^\d$/.test(t) ? `0${t}` : t;
  },
  /** Card numbers as typed on a checkout form: spaces and hyphens removed. */
  digitsOnly: (v) => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : v),
} as const satisfies Record<string, Coercer>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// In checking mode a value of the wrong kind is INVALID at once; otherwise it is handed on
// as it is, for the schema to reject.
function objectNorm(shape: Shape, checked: boolean, path: string): Norm {
  const norm = compileShape(shape, checked, path);
  const other = checked ? INVALID : undefined;
  return (value, notes) => (isPlainObject(value) ? norm(value, notes) : (other ?? value));
}

function arrayNorm(item: Norm | undefined, checked: boolean, maxItems: number): Norm | undefined {
  if (!item) return undefined;
  return (value, notes) => {
    if (!Array.isArray(value)) return checked ? INVALID : value;
    if (checked && value.length > maxItems) return INVALID;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = value[i] === null ? (checked ? INVALID : null) : item(value[i], notes);
      if (next === INVALID) return INVALID;
      if (out !== undefined) out.push(next);
      else if (next !== value[i]) (out = value.slice(0, i)).push(next);
    }
    return out ?? value;
  };
}

// An array item that is neither an object nor an array, in checking mode: coerced, then
// checked, as a field of an object is (shape-code.ts).
function leafItemNorm(schema: TSchema, coerce: Coercer | undefined, path: string): Norm {
  const check = leafCheck(schema, path);
  return (value) => {
    const v = coerce ? coerce(value) : value;
    return check(v) ? v : INVALID;
  };
}

interface Build extends ShapeOptions {
  /** Checking mode: see shape-code.ts. */
  readonly checked: boolean;
}

function buildShape(schema: TSchema, path: string, opts: Build): Shape {
  if (opts.checked) assertKnownKeywords(schema, path);
  const canonical = new Map<string, Slot>();
  const folded = new Map<string, Slot>();
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const [key, child] of Object.entries(properties)) {
    const at = join(path, key);
    const slot: Slot = { key, index: canonical.size, required: required.has(key), path: at, ...buildField(child, at, opts) };
    canonical.set(key, slot);
    folded.set(key.toLowerCase(), slot);
  }
  for (const [alias, target] of Object.entries(opts.aliases ?? {})) {
    const dot = target.lastIndexOf('.');
    if (target.slice(0, Math.max(dot, 0)) !== path) continue;
    const slot = canonical.get(target.slice(dot + 1));
    if (!slot) throw new Error(`alias ${alias} names no field ${target}`);
    folded.set(alias.toLowerCase(), slot);
  }
  return { canonical, folded, ignored: new Set(path === '' ? (opts.ignoreTopLevel ?? []) : []) };
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function buildField(schema: TSchema, path: string, opts: Build): Pick<Slot, 'norm' | 'shape' | 'leaf'> {
  if (schema.type === 'object') {
    const shape = buildShape(schema, path, opts);
    return { norm: objectNorm(shape, opts.checked, path), shape, leaf: undefined };
  }
  if (schema.type === 'array') {
    if (opts.checked) assertKnownKeywords(schema, path);
    const items = schema.items as TSchema;
    const item = buildField(items, `${path}[]`, opts);
    const itemNorm = opts.checked && item.leaf ? leafItemNorm(items, opts.coerce?.[`${path}[]`], path) : item.norm;
    const maxItems = (schema.maxItems as number | undefined) ?? Infinity;
    if (opts.checked && schema.minItems !== undefined) throw new Error(`${path}: minItems has no fast check`);
    return { norm: arrayNorm(itemNorm, opts.checked, maxItems), shape: item.shape, leaf: undefined };
  }
  return { norm: opts.coerce?.[path], shape: undefined, leaf: opts.checked ? schema : undefined };
}

/**
 * The dotted path, in canonical names, of `target` inside `root` (`orderItems[1]`), '' for
 * the root itself. Only run when there is a warning to place.
 */
function pathOf(shape: Shape, root: Record<string, unknown>, target: object, path: string): string | undefined {
  if (root === target) return path;
  for (const [rawKey, value] of Object.entries(root)) {
    const slot = slotOf(shape, rawKey);
    if (slot?.shape === undefined || typeof value !== 'object' || value === null) continue;
    const items = Array.isArray(value) ? value : [value];
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isPlainObject(item)) continue;
      const found = pathOf(slot.shape, item, target, Array.isArray(value) ? `${join(path, slot.key)}[${i}]` : join(path, slot.key));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function build(schema: TSchema, opts: Build): (input: unknown, warnings: FieldError[]) => unknown {
  for (const path of Object.keys(opts.coerce ?? {})) assertPath(schema, path);
  const shape = buildShape(schema, '', opts);
  const norm = objectNorm(shape, opts.checked, '');
  return (input, warnings) => {
    const notes: Note[] = [];
    const out = norm(input, notes);
    if (out === INVALID) return out;
    for (const n of notes) {
      const field = join(pathOf(shape, input as Record<string, unknown>, n.owner, '') ?? '', n.key);
      warnings.push({ field, code: n.code, message: `${field}: ${MODEL_WARNINGS[n.code].message}` });
    }
    return out;
  };
}

/**
 * A normaliser for one object schema. It returns the canonical form of an object input,
 * or a non-object input as it is, for the schema to reject. The input is never changed;
 * the result shares the parts that needed no change with it.
 */
export function makeNormaliser(schema: TSchema, opts: ShapeOptions): (input: unknown, warnings: FieldError[]) => unknown {
  return build(schema, { ...opts, checked: false });
}

/**
 * The same normaliser in checking mode: the canonical form (and its warnings) when it
 * satisfies every keyword of the schema, INVALID (and no warnings) otherwise.
 */
export function makeCheckingNormaliser(schema: TSchema, opts: ShapeOptions): (input: unknown, warnings: FieldError[]) => unknown {
  return build(schema, { ...opts, checked: true });
}

// A coercion for a path the schema does not have would silently do nothing: fail at load.
function assertPath(schema: TSchema, path: string): void {
  let node: TSchema | undefined = schema;
  for (const part of path.split('.')) {
    const array = part.endsWith('[]');
    node = (node?.properties as Record<string, TSchema> | undefined)?.[array ? part.slice(0, -2) : part];
    if (array) node = node?.items as TSchema | undefined;
  }
  if (!node) throw new Error(`coercion path ${path} names no field of the schema`);
}
