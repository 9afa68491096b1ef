// Normalisation before validation: one pass over the input that yields the canonical form
// the schemas describe, copying only the objects that change. Real clients send the spellings the spec's own listings use
// (IsDeclined, isDecline, SiteUrl, zipCode, ExpirationMonth), null for absent optional
// fields, numbers as numeric strings where one listing types them as string, and dates
// as ISO 8601 or RFC 1123 (DESIGN.md §2 "Leniency").
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

export type Coercer = (value: unknown) => unknown;
type Norm = (value: unknown, notes: Note[]) => unknown;

interface Slot {
  readonly key: string;
  /** Position in the schema's property order. */
  readonly index: number;
  readonly norm: Norm | undefined;
  /** The shape of an object field, or of the items of an array field. */
  readonly shape: Shape | undefined;
}

interface Shape {
  /** Canonical spellings only: the fast path. */
  readonly canonical: ReadonlyMap<string, Slot>;
  /** Lower-cased canonical names and aliases: the path for other spellings. */
  readonly folded: ReadonlyMap<string, Slot>;
  readonly ignored: ReadonlySet<string>;
}

// A warning is noted against the object it was found in; its dotted path is worked out
// only when there is a warning to report, so the common case builds no path strings.
interface Note {
  readonly owner: object;
  readonly key: string;
  readonly code: 'WARN_MODEL_UNKNOWN_FIELD' | 'WARN_MODEL_DUPLICATE_FIELD';
}

export interface ShapeOptions {
  /** Leaf coercions by canonical path; array items are written `orderItems[].quantity`. */
  readonly coerce?: Readonly<Record<string, Coercer>>;
  /** Other spellings by canonical path of the field: `{ isDecline: 'isDeclined' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Top-level keys that are neither fields nor unknown (the batch header's `requests`). */
  readonly ignoreTopLevel?: readonly string[];
}

// A body with thousands of stray keys gets a bounded answer.
const MAX_NOTES = 20;
const MAX_KEY_CHARS = 64;
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
  /** Card numbers as typed on a checkout form: spaces and hyphens removed. */
  digitsOnly: (v) => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : v),
} as const satisfies Record<string, Coercer>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function note(notes: Note[], owner: object, key: string, code: Note['code']): void {
  if (notes.length < MAX_NOTES) notes.push({ owner, key: key.slice(0, MAX_KEY_CHARS), code });
}

// Keys that are not canonical spellings: other spellings of a field (IsDeclined, zipCode)
// fill the field's place in `values` unless the canonical spelling carries a value (it
// wins, whatever the order of the keys); unknown keys are noted and dropped.
function otherKeys(shape: Shape, input: Record<string, unknown>, values: unknown[], notes: Note[]): void {
  for (const rawKey of Object.keys(input)) {
    if (shape.canonical.has(rawKey)) continue;
    const slot = slotOf(shape, rawKey);
    if (slot === undefined) {
      if (!shape.ignored.has(rawKey)) note(notes, input, rawKey, 'WARN_MODEL_UNKNOWN_FIELD');
      continue;
    }
    const value = input[rawKey];
    if (value === null || value === undefined) continue;
    if (values[slot.index] !== undefined) note(notes, input, rawKey, 'WARN_MODEL_DUPLICATE_FIELD');
    else values[slot.index] = value;
  }
}

type ObjectNorm = (input: Record<string, unknown>, notes: Note[]) => Record<string, unknown>;

// One object shape's normaliser, generated as code (as Ajv generates its validators): each
// canonical field is read at its own property-access site, so V8's inline caches stay
// monomorphic, where a loop over `input[key]` is one megamorphic site for every key. A
// count of the input's keys tells whether any key is not a canonical spelling; only then
// are the keys walked (otherKeys). Copy on write: an object whose keys are canonical and
// whose values need no change is returned as it is; otherwise the copy is built in schema
// order, so every output of a shape has the same key order for the validator.
function compileShape(shape: Shape): ObjectNorm {
  const slots = [...shape.canonical.values()];
  const key = (s: Slot) => JSON.stringify(s.key);
  const vars = slots.map((_, i) => `v${i}`);
  const body = [
    'let n = 0; let changed = false;',
    ...slots.map((s, i) => `let v${i} = input[${key(s)}]; if (v${i} !== undefined) { n++; if (v${i} === null) { v${i} = undefined; changed = true; } }`),
    'let keys = 0; for (const _ in input) keys++;',
    `if (keys !== n) { const a = [${vars.join(', ')}]; otherKeys(shape, input, a, notes); changed = true; ${vars.map((v, i) => `${v} = a[${i}];`).join(' ')} }`,
    ...slots.flatMap((s, i) => (s.norm ? [`if (v${i} !== undefined) { const w = norm${i}(v${i}, notes); if (w !== v${i}) { v${i} = w; changed = true; } }`] : [])),
    'if (!changed) return input;',
    'const out = {};',
    ...slots.map((s, i) => `if (v${i} !== undefined) out[${key(s)}] = v${i};`),
    'return out;',
  ].join('\n');
  const norms = slots.map((s) => s.norm);
  const factory = new Function('shape', 'otherKeys', ...norms.map((_, i) => `norm${i}`), `return function normalise(input, notes) {\n${body}\n};`);
  return factory(shape, otherKeys, ...norms) as ObjectNorm;
}

function objectNorm(shape: Shape): Norm {
  const norm = compileShape(shape);
  return (value, notes) => (isPlainObject(value) ? norm(value, notes) : value);
}

function slotOf(shape: Shape, rawKey: string): Slot | undefined {
  return shape.canonical.get(rawKey) ?? shape.folded.get(rawKey.toLowerCase());
}

function arrayNorm(item: Norm): Norm {
  return (value, notes) => {
    if (!Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = value[i] === null ? null : item(value[i], notes);
      if (out !== undefined) out.push(next);
      else if (next !== value[i]) (out = value.slice(0, i)).push(next);
    }
    return out ?? value;
  };
}

function buildShape(schema: TSchema, path: string, opts: ShapeOptions): Shape {
  const canonical = new Map<string, Slot>();
  const folded = new Map<string, Slot>();
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  for (const [key, child] of Object.entries(properties)) {
    const slot: Slot = { key, index: canonical.size, ...buildField(child, join(path, key), opts) };
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

function buildField(schema: TSchema, path: string, opts: ShapeOptions): Pick<Slot, 'norm' | 'shape'> {
  if (schema.type === 'object') {
    const shape = buildShape(schema, path, opts);
    return { norm: objectNorm(shape), shape };
  }
  if (schema.type === 'array') {
    const item = buildField(schema.items as TSchema, `${path}[]`, opts);
    return { norm: item.norm && arrayNorm(item.norm), shape: item.shape };
  }
  return { norm: opts.coerce?.[path], shape: undefined };
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

/**
 * A normaliser for one object schema. It returns the canonical form of an object input,
 * or a non-object input as it is, for the schema to reject. The input is never changed;
 * the result shares the parts that needed no change with it.
 */
export function makeNormaliser(schema: TSchema, opts: ShapeOptions): (input: unknown, warnings: FieldError[]) => unknown {
  for (const path of Object.keys(opts.coerce ?? {})) assertPath(schema, path);
  const shape = buildShape(schema, '', opts);
  const norm = objectNorm(shape);
  return (input, warnings) => {
    const notes: Note[] = [];
    const out = norm(input, notes);
    for (const n of notes) {
      const field = join(pathOf(shape, input as Record<string, unknown>, n.owner, '') ?? '', n.key);
      warnings.push({ field, code: n.code, message: `${field}: ${MODEL_WARNINGS[n.code].message}` });
    }
    return out;
  };
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
