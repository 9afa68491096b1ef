// One object shape's normaliser, generated as code (as Ajv generates its validators): each
// canonical field is read at its own property-access site, so V8's inline caches stay
// monomorphic, where a loop over `input[key]` is one megamorphic site for every key. A
// count of the input's keys tells whether any key is not a canonical spelling; only then
// are the keys walked (otherKeys). Copy on write: an object whose keys are canonical and
// whose values need no change is returned as it is; otherwise the copy is built in schema
// order, so every output of a shape has the same key order for the validator.
//
// In checking mode the same function also checks each canonical value against its schema
// (checks.ts) and answers INVALID at the first problem: a valid input is then walked once,
// and an invalid one is left to Ajv, which lists every problem (validate.ts).
import type { TSchema } from '@sinclair/typebox';
import { leafCondition, type Dependency } from './checks.ts';

export type Norm = (value: unknown, notes: Note[]) => unknown;
export type ObjectNorm = (input: Record<string, unknown>, notes: Note[]) => unknown;

/** The checking mode's answer for an input that does not match its schema. */
export const INVALID: unique symbol = Symbol('invalid');

export interface Slot {
  readonly key: string;
  /** Position in the schema's property order. */
  readonly index: number;
  readonly norm: Norm | undefined;
  /** The shape of an object field, or of the items of an array field. */
  readonly shape: Shape | undefined;
  /** Listed in the object's `required`. */
  readonly required: boolean;
  /** The schema of a field that is neither an object nor an array (checking mode). */
  readonly leaf: TSchema | undefined;
  /** Canonical dotted path, for load-time messages. */
  readonly path: string;
}

export interface Shape {
  /** Canonical spellings only: the fast path. */
  readonly canonical: ReadonlyMap<string, Slot>;
  /** Lower-cased canonical names and aliases: the path for other spellings. */
  readonly folded: ReadonlyMap<string, Slot>;
  readonly ignored: ReadonlySet<string>;
}

// A warning is noted against the object it was found in; its dotted path is worked out
// only when there is a warning to report, so the common case builds no path strings.
export interface Note {
  readonly owner: object;
  readonly key: string;
  readonly code: 'WARN_MODEL_UNKNOWN_FIELD' | 'WARN_MODEL_DUPLICATE_FIELD';
}

// A body with thousands of stray keys gets a bounded answer.
const MAX_NOTES = 20;
const MAX_KEY_CHARS = 64;

function note(notes: Note[], owner: object, key: string, code: Note['code']): void {
  if (notes.length < MAX_NOTES) notes.push({ owner, key: key.slice(0, MAX_KEY_CHARS), code });
}

export function slotOf(shape: Shape, rawKey: string): Slot | undefined {
  return shape.canonical.get(rawKey) ?? shape.folded.get(rawKey.toLowerCase());
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

// The normalising (and in checking mode, checking) code of one field, held in `v<i>`.
function fieldCode(s: Slot, i: number, checked: boolean, dep: Dependency): string {
  const v = `v${i}`;
  const norm = s.norm
    ? `const w = ${dep(s.norm)}(${v}, notes); if (w !== ${v}) { ${checked ? 'if (w === INVALID) return INVALID; ' : ''}${v} = w; changed = true; }`
    : '';
  if (!checked) return norm ? `if (${v} !== undefined) { ${norm} }` : '';
  const leaf = s.leaf ? `if (!(${leafCondition(s.leaf, v, dep, s.path)})) return INVALID;` : '';
  return `if (${v} !== undefined) { ${norm} ${leaf} }${s.required ? ' else return INVALID;' : ''}`;
}

/** `name` (the shape's path) names the generated code in profiles and stack traces. */
export function compileShape(shape: Shape, checked: boolean, name: string): ObjectNorm {
  const slots = [...shape.canonical.values()];
  const deps: unknown[] = [];
  const dep: Dependency = (value) => `d${deps.push(value) - 1}`;
  const key = (s: Slot) => JSON.stringify(s.key);
  const vars = slots.map((_, i) => `v${i}`);
  const body = [
    'let n = 0; let changed = false;',
    ...slots.map((s, i) => `let v${i} = input[${key(s)}]; if (v${i} !== undefined) { n++; if (v${i} === null) { v${i} = undefined; changed = true; } }`),
    'let keys = 0; for (const _ in input) keys++;',
    `if (keys !== n) { const a = [${vars.join(', ')}]; otherKeys(shape, input, a, notes); changed = true; ${vars.map((v, i) => `${v} = a[${i}];`).join(' ')} }`,
    ...slots.map((s, i) => fieldCode(s, i, checked, dep)),
    'if (!changed) return input;',
    'const out = {};',
    ...slots.map((s, i) => `if (v${i} !== undefined) out[${key(s)}] = v${i};`),
    'return out;',
  ].join('\n');
  const names = deps.map((_, i) => `d${i}`);
  const url = `model/${checked ? 'check' : 'normalise'}/${name || 'root'}.js`;
  const factory = new Function('shape', 'otherKeys', 'INVALID', ...names, `return function normalise(input, notes) {\n${body}\n};\n//# sourceURL=${url}`);
  return factory(shape, otherKeys, INVALID, ...deps) as ObjectNorm;
}
