// Transmit input: the same model as evaluate, read leniently (DESIGN.md §2 "Transmit
// input"). An approved payment is data for the merchant's model; a field that is wrong
// should cost that field, not the whole record. So only orderId, transaction and payer
// must be present and well-formed; any other problem becomes a warning (keeping its
// ERR_MODEL_* code, so the merchant can look it up) and the offending field is left out of
// the value. A missing field is not a problem at all: everything else is optional.
import type { FieldError } from '../error-types.ts';
import { ROOT_FIELD } from './field-errors.ts';
import { TRANSMIT_REQUIRED } from './schemas/transmit.ts';
import { CARD_IN_IDENTIFIER } from './card-data.ts';

const FATAL: ReadonlySet<string> = new Set([ROOT_FIELD, ...TRANSMIT_REQUIRED]);

/** `orderItems[2].quantity` → ['orderItems', 2, 'quantity']. */
function segments(field: string): Array<string | number> {
  return field.split('.').flatMap((part) => {
    const [name = '', ...indices] = part.split('[');
    return [name, ...indices.map((i) => Number(i.slice(0, -1)))].filter((s) => s !== '');
  });
}

// Array items are blanked, not spliced, so the indices of later fields stay right; the
// arrays are compacted once every field is removed.
function removeField(root: unknown, field: string, touched: Set<unknown[]>): void {
  const path = segments(field);
  let node: unknown = root;
  for (const seg of path.slice(0, -1)) node = (node as Record<string | number, unknown> | undefined)?.[seg];
  const last = path[path.length - 1];
  if (Array.isArray(node) && typeof last === 'number') {
    node[last] = undefined;
    touched.add(node);
  } else if (typeof node === 'object' && node !== null && last !== undefined) {
    delete (node as Record<string | number, unknown>)[last];
  }
}

/** A validation's verdict read leniently: see the comment at the top of this file. */
export function leniently<C extends { value: unknown; errors: FieldError[]; warnings: FieldError[] }>(checked: C): C {
  if (checked.errors.length === 0) return checked;
  // The value may share objects with the caller's input: fields are removed from a copy.
  const value = structuredClone(checked.value);
  const errors: FieldError[] = [];
  const warnings = [...checked.warnings];
  const touched = new Set<unknown[]>();
  for (const e of checked.errors) {
    // A card number in an identifier refuses the record, as it refuses an evaluate: dropping
    // the field quietly would hide from the merchant that a number went where an id belongs.
    if (FATAL.has(e.field) || e.code === CARD_IN_IDENTIFIER) {
      errors.push(e);
      continue;
    }
    if (e.code !== 'ERR_MODEL_REQUIRED') warnings.push(e);
    removeField(value, e.field, touched);
  }
  for (const arr of touched) {
    const kept = arr.filter((v) => v !== undefined);
    arr.length = 0;
    arr.push(...kept);
  }
  return { ...checked, value, errors, warnings };
}
