// Card numbers in the request model: the one place where evaluate, transmit and batch entries
// become card-safe, whichever path stores them (docs/security.md, "Card numbers in requests").
// Every validated request goes through here before anything is stored or written:
//  - an identifier (a string field named `id`, `…Id` or `…Key`: orderId, idempotencyKey,
//    payer.id, subscription.schemeTransactionId, …) holding a card number refuses the request
//    with ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER: a masked identifier would no longer match the
//    merchant's own, and idempotency and duplicate checks would compare masks;
//  - every other string, values and keys at any depth, is scrubbed (card numbers masked to six
//    and four, CVVs next to their name redacted), except the card number field that goes to the
//    vault, which the order replaces with its token.
// The lists of fields are derived from the request schema, so a field added to the model is
// covered without being named here.
import type { TSchema } from '@sinclair/typebox';
import type { FieldError } from '../error-types.ts';
import { issuedCardNumberIn } from '../card-numbers.ts';
import { scrubText } from '../scrub.ts';
import { EvaluateRequestSchema } from './schemas/evaluate.ts';

export const CARD_IN_IDENTIFIER = 'ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER';

/** The field whose card number the vault takes: left as it is here. */
export const VAULT_FIELD = 'paymentMethod.cardNumber';

const IDENTIFIER_NAME = /^(?:id|xid|mid)$|[a-z0-9](?:Id|Key)$/;

/** Every string field of a schema, as a path (`orderItems[].name`), through objects and arrays. */
export function stringPaths(schema: TSchema, path = ''): string[] {
  if (schema.type === 'string') return [path];
  if (schema.type === 'array') return stringPaths(schema.items as TSchema, `${path}[]`);
  if (schema.type !== 'object') return [];
  return Object.entries((schema.properties ?? {}) as Record<string, TSchema>).flatMap(([k, v]) => stringPaths(v, path ? `${path}.${k}` : k));
}

/** The identifier fields of the request model (evaluate, transmit and batch entries share it). */
export const IDENTIFIER_PATHS: readonly string[] = stringPaths(EvaluateRequestSchema).filter((p) => IDENTIFIER_NAME.test(p.slice(p.lastIndexOf('.') + 1).replace('[]', '')));


// The walk's map of the request: which fields are identifiers, which is the vault's, derived
// once from the schema, so that walking an entry builds no path strings (intake walks every
// entry of every batch file).
interface Node {
  kind: 'text' | 'identifier' | 'vault';
  /** Object fields, by name; array items under ''. */
  children: Map<string, Node>;
}

function nodeOf(schema: TSchema, path: string): Node {
  const kind = path === VAULT_FIELD ? 'vault' : IDENTIFIER_PATHS.includes(path) ? 'identifier' : 'text';
  const children = new Map<string, Node>();
  if (schema.type === 'array') children.set('', nodeOf(schema.items as TSchema, `${path}[]`));
  if (schema.type === 'object') {
    for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) children.set(k, nodeOf(v, path ? `${path}.${k}` : k));
  }
  return { kind, children };
}

const ROOT = nodeOf(EvaluateRequestSchema, '');
const TEXT: Node = { kind: 'text', children: new Map() };

/** Shortest text a card number fits in: shorter strings need no look. */
const MIN_CARD_TEXT = 13;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Field = Array<string | number>;
/** The walk's path to the value it is at: one array for every walk (the walk is synchronous). */
const PATH: Field = [];
const fieldName = (at: Field) => at.reduce<string>((f, s) => (typeof s === 'number' ? `${f}[${s}]` : f ? `${f}.${s}` : s), '');

/** One walk: identifiers holding a card number become errors, every other string is scrubbed. */
function walk(value: unknown, node: Node, at: Field, errors: FieldError[]): unknown {
  if (typeof value === 'string') {
    if (node.kind === 'vault') return value;
    if (node.kind === 'identifier') {
      if (value.length >= MIN_CARD_TEXT && issuedCardNumberIn(value)) errors.push(identifierError(fieldName(at)));
      return value;
    }
    return scrubText(value);
  }
  if (Array.isArray(value)) {
    const item = node.children.get('') ?? TEXT;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      const v = walk(value[i], item, at, errors);
      at.pop();
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = value[k];
    const child = node.children.get(k);
    // A field of the model is named by the schema; any other key is the sender's text.
    const key = child ? k : scrubText(k);
    at.push(k);
    const w = walk(v, child ?? TEXT, at, errors);
    at.pop();
    if (key !== k || w !== v) {
      out ??= { ...value };
      if (key !== k) delete out[k];
      out[key] = w;
    }
  }
  return out ?? value;
}

function identifierError(field: string): FieldError {
  return { field, code: CARD_IN_IDENTIFIER, message: `${field} holds a card number; an identifier is never masked, so the request is refused (send the card number in ${VAULT_FIELD} only).` };
}

/**
 * The request as it may be stored, and an error for each identifier that holds a card number a
 * network could have issued. Every other string (value or key, at any depth) is scrubbed, but
 * the vault's field. Objects that needed nothing are shared, not copied.
 */
export function cardSafeRequest<T>(value: T): { value: T; errors: FieldError[] } {
  const errors: FieldError[] = [];
  PATH.length = 0;
  const out = walk(value, ROOT, PATH, errors) as T;
  return { value: out, errors };
}

/** Field errors and warnings as they may be answered and stored: a key can be a card number. */
export function scrubFieldErrors(list: FieldError[]): FieldError[] {
  let out: FieldError[] | undefined;
  list.forEach((e, i) => {
    const field = scrubText(e.field);
    const message = scrubText(e.message);
    if (field !== e.field || message !== e.message) (out ??= [...list])[i] = { ...e, field, message };
  });
  return out ?? list;
}
