// Card numbers planted in every string field of the request model, for the card-data test.
// The fields are derived from the model's TypeBox schema (every string-typed property, through
// objects and arrays), never listed by hand, and sorted three ways:
//  - free text: stored, so it must come back masked;
//  - identifiers (the model's own list, src/domain/card-data.ts): the request must be refused;
//  - fields whose format or length a card number breaks (dates, codes, UUIDs): the request is
//    refused by validation, and nothing of it may be stored either.
// One request per kind and spelling carries all its fields at once, each with its own number,
// so a number found in clear later names the field and spelling it was planted in.
import { randomUUID } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { EvaluateRequestSchema } from '../../src/domain/index.ts';
import { IDENTIFIER_PATHS, VAULT_FIELD } from '../../src/domain/card-data.ts';
import { luhnNumber, spell, type Spelling } from './card-spellings.ts';

type Obj = Record<string, unknown>;

export interface StringField {
  path: string;
  schema: TSchema;
}

/** Every string field of a schema, as a path (`orderItems[].name`). */
export function stringFields(schema: TSchema, path = ''): StringField[] {
  if (schema.type === 'string') return [{ path, schema }];
  if (schema.type === 'array') return stringFields(schema.items as TSchema, `${path}[]`);
  if (schema.type !== 'object') return [];
  return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([k, v]) => stringFields(v, path ? `${path}.${k}` : k));
}

export const FIELDS = stringFields(EvaluateRequestSchema).filter((f) => f.path !== VAULT_FIELD);

export type Kind = 'text' | 'identifier' | 'refused';

/** The value planted in a field: text around the number, or the number alone in an identifier. */
const planted = (kind: Kind, written: string) => (kind === 'identifier' ? written : `note ${written} end`);

/** How a field holding `decoded` (the value once JSON is parsed) must be treated. */
export function kindOf(f: StringField, decoded: string): Kind {
  if (IDENTIFIER_PATHS.includes(f.path)) return 'identifier';
  if (f.schema.format !== undefined || (f.schema.maxLength ?? Infinity) < decoded.length) return 'refused';
  return 'text';
}

/** The spellings the card-data test plants: six, from plain to full-width. */
export const PLANTED_SPELLINGS: readonly Spelling[] = ['plain', 'with runs of spaces', 'with dashes', 'with dots', 'as JSON escapes', 'in full-width digits'];

export interface Plant {
  path: string;
  spelling: Spelling;
  kind: Kind;
  pan: string;
  /** Where the number stands in the JSON text until it is written out. */
  marker: string;
  /** As written into the JSON text. */
  written: string;
}

/** A number a network could have issued (Visa, Mastercard, American Express, Discover), from `random`. */
export function issuedNumber(random: () => number, i: number): string {
  const [prefix, length] = ([['4', 16], ['51', 16], ['37', 15], ['6011', 16]] as const)[i % 4]!;
  return luhnNumber(random, length, prefix);
}

function setAt(body: Obj, path: string, value: string): void {
  const segs = path.split('.');
  let node: Obj = body;
  for (const seg of segs.slice(0, -1)) {
    const key = seg.replace('[]', '');
    if (seg.endsWith('[]')) {
      const list = ((node[key] as Obj[] | undefined) ??= [{}]);
      node = list[0] ??= {};
    } else {
      node = (node[key] as Obj | undefined) ??= {};
    }
  }
  node[segs.at(-1)!] = value;
}

/**
 * The plants of one request: every field of `kind` gets its own number in `spelling`. A text
 * request also gets an unknown key holding a number (the model drops it and warns by name).
 */
export function plantsFor(kind: Kind, spelling: Spelling, random: () => number): Plant[] {
  const plants: Plant[] = [];
  const add = (path: string) => {
    const pan = issuedNumber(random, plants.length);
    const written = spell(pan, spelling, random);
    const decoded = JSON.parse(`"${written}"`) as string;
    const f = FIELDS.find((x) => x.path === path);
    if (f && kindOf(f, planted(kind, decoded)) !== kind) return;
    plants.push({ path, spelling, kind, pan, marker: `@@${randomUUID()}@@`, written: planted(kind, written) });
  };
  for (const f of FIELDS) add(f.path);
  if (kind === 'text') add('(unknown key)');
  return plants;
}

/**
 * The JSON text of `base` with the plants in place: each marker replaced by its number as
 * written, so JSON escapes reach the parser as escapes and full-width digits as UTF-8.
 */
export function plantedJson(base: Obj, plants: Plant[]): string {
  const body = structuredClone(base);
  for (const p of plants) {
    if (p.path === '(unknown key)') body[p.marker] = 'planted under an unknown key';
    else setAt(body, p.path, p.marker);
  }
  let text = JSON.stringify(body);
  for (const p of plants) text = text.replace(p.marker, p.written);
  return text;
}

/** The value at a path of a stored request (`orderItems[].name` reads the first item). */
export function valueAt(stored: unknown, path: string): unknown {
  let node = stored;
  for (const seg of path.split('.')) {
    const key = seg.replace('[]', '');
    node = (node as Obj | undefined)?.[key];
    if (seg.endsWith('[]')) node = (node as unknown[] | undefined)?.[0];
  }
  return node;
}
