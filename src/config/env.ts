// RESCUED_* environment overrides. Every variable name is derived from a leaf of the config
// schema (auth.tokenLifetimeSeconds → RESCUED_AUTH_TOKEN_LIFETIME_SECONDS), so the mapping
// is never written by hand and an unknown RESCUED_* variable can be refused by name.
import type { TSchema } from '@sinclair/typebox';
import { ConfigError } from './error.ts';

interface Leaf {
  path: string[];
  schema: TSchema;
}

function leaves(schema: TSchema, path: string[] = []): Leaf[] {
  if (schema.type === 'object' && schema.properties) {
    return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([k, s]) => leaves(s, [...path, k]));
  }
  return [{ path, schema }];
}

const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
export const envName = (path: string[]) => `RESCUED_${path.map(snake).join('_')}`;

/** Variables that are not config keys but are read by the loader itself. */
const RESERVED = new Set(['RESCUED_CONFIG']);

function parseValue(raw: string, schema: TSchema, name: string, key: string): unknown {
  if (schema.type === 'integer' || schema.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(key, `expected a number, got "${raw}" (from ${name})`);
    return n;
  }
  // A boolean that may be null ("decided by the mode"): true, false or null.
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'boolean')) {
    if (/^null$/i.test(raw)) return null;
    return parseValue(raw, { type: 'boolean' } as unknown as TSchema, name, key);
  }
  if (schema.type === 'boolean') {
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    throw new ConfigError(key, `expected true or false (from ${name})`);
  }
  if (schema.type === 'object') {
    try {
      return JSON.parse(raw);
    } catch {
      throw new ConfigError(key, `expected a JSON object (from ${name})`);
    }
  }
  return raw;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[seg] = {};
    node = node[seg] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Applies RESCUED_* (and DATABASE_URL) to a parsed config object, in place. */
export function applyEnv(target: Record<string, unknown>, schema: TSchema, env: NodeJS.ProcessEnv): void {
  const byName = new Map(leaves(schema).map((l) => [envName(l.path), l]));
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('RESCUED_') || RESERVED.has(name) || raw === undefined) continue;
    const leaf = byName.get(name);
    if (!leaf) throw new ConfigError(name, 'unknown environment variable: no configuration key has this name');
    setPath(target, leaf.path, parseValue(raw, leaf.schema, name, leaf.path.join('.')));
  }
  // DATABASE_URL is the conventional name; RESCUED_DATABASE_URL wins when both are set.
  if (env.DATABASE_URL && !env.RESCUED_DATABASE_URL) setPath(target, ['database', 'url'], env.DATABASE_URL);
}

export function configKeys(schema: TSchema): string[] {
  return leaves(schema).map((l) => l.path.join('.'));
}
