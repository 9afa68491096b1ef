// Ajv's errors turned into the merchant's words: a FieldError per field with a dotted path
// in canonical names (`orderItems[2].quantity`) and a message that says what is expected.
// Messages are built from the schema, never from the value, so a card number or CVV can
// never be echoed back.
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../error-types.ts';
import type { ModelErrorCode } from './codes.ts';
import { FORMAT_WORDS } from './format-table.ts';
import { NUMERIC_TEXT_NOTE } from './schemas/fields.ts';

/** The root of the input when it is not an object at all. */
export const ROOT_FIELD = '$';

const TYPE_WORDS: Record<string, string> = {
  string: 'text (a JSON string)',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list (a JSON array)',
};

export function fieldError(field: string, code: ModelErrorCode, words: string): FieldError {
  return { field, code, message: `${field === ROOT_FIELD ? 'The request' : field} ${words}.` };
}

/** `/orderItems/2/quantity` → `orderItems[2].quantity`. */
export function fieldOf(pointer: string, child?: string): string {
  let field = '';
  for (const raw of pointer.split('/')) {
    if (raw === '') continue;
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    field = /^\d+$/.test(seg) ? `${field}[${seg}]` : field === '' ? seg : `${field}.${seg}`;
  }
  if (child !== undefined) field = field === '' ? child : `${field}.${child}`;
  return field === '' ? ROOT_FIELD : field;
}

interface Bounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

function rangeWords(schema: Bounds): string {
  const low = schema.minimum !== undefined ? `at least ${schema.minimum}` : schema.exclusiveMinimum !== undefined ? `greater than ${schema.exclusiveMinimum}` : undefined;
  const high = schema.maximum !== undefined ? `at most ${schema.maximum}` : schema.exclusiveMaximum !== undefined ? `less than ${schema.exclusiveMaximum}` : undefined;
  return `must be ${[low, high].filter(Boolean).join(' and ')}`;
}

function integerHint(schema: { description?: string }): string {
  return schema.description?.includes(NUMERIC_TEXT_NOTE) ? ' (a number, or digits in a string)' : '';
}

function convert(e: ErrorObject): FieldError {
  const parent = (e.parentSchema ?? {}) as Bounds & { description?: string };
  switch (e.keyword) {
    case 'required':
      return fieldError(fieldOf(e.instancePath, (e.params as { missingProperty: string }).missingProperty), 'ERR_MODEL_REQUIRED', 'is required');
    case 'minLength':
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_REQUIRED', 'must not be empty');
    case 'maxLength':
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_FORMAT', `must be at most ${(e.params as { limit: number }).limit} characters`);
    case 'maxItems':
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_FORMAT', `must have at most ${(e.params as { limit: number }).limit} items`);
    case 'type': {
      const type = String((e.params as { type: string }).type);
      const hint = type === 'integer' ? integerHint(parent) : '';
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_TYPE', `must be ${TYPE_WORDS[type] ?? type}${hint}`);
    }
    case 'format': {
      const format = String((e.params as { format: string }).format);
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_FORMAT', FORMAT_WORDS[format] ?? `must be in ${format} format`);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_RANGE', rangeWords(parent) + (parent.description?.includes('in cents') ? ' (cents)' : ''));
    default:
      return fieldError(fieldOf(e.instancePath), 'ERR_MODEL_FORMAT', 'is not valid');
  }
}

/** Ajv errors as field errors, one per field (the first, most basic problem of each). */
export function fromAjv(errors: readonly ErrorObject[] | null | undefined, into: FieldError[]): void {
  const seen = new Set(into.map((e) => e.field));
  for (const e of errors ?? []) {
    const fe = convert(e);
    if (seen.has(fe.field)) continue;
    seen.add(fe.field);
    into.push(fe);
  }
}
