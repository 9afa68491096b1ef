// Small assertions shared by the model's tests: a validation's problems as (field, code)
// pairs, so a test states exactly which field failed with which code.
import { expect } from 'vitest';
import type { FieldError } from '../../../src/errors.ts';
import type { Validation } from '../../../src/domain/index.ts';

export type Problem = { field: string; code: string };

export function problems(list: readonly FieldError[]): Problem[] {
  return list.map(({ field, code }) => ({ field, code }));
}

export function errorsOf(r: Validation<unknown>): Problem[] {
  return r.ok ? [] : problems(r.errors);
}

/** The validation failed, and `field` is among its errors with `code`. */
export function expectError(r: Validation<unknown>, field: string, code: string): void {
  expect(r.ok, `expected an error on ${field}`).toBe(false);
  expect(errorsOf(r)).toContainEqual({ field, code });
}

/** The validation failed with exactly these errors (order aside). */
export function expectOnlyErrors(r: Validation<unknown>, expected: Problem[]): void {
  expect(r.ok).toBe(false);
  expect(errorsOf(r)).toEqual(expect.arrayContaining(expected));
  expect(errorsOf(r)).toHaveLength(expected.length);
}

/** The validation passed; its value is returned for further checks. */
export function expectValid<T>(r: Validation<T>): T {
  if (!r.ok) expect.fail(`expected valid, got ${JSON.stringify(r.errors)}`);
  return r.value;
}

/** A deep copy of `obj` with `path` (dotted, `a.b[1].c`) set to `value`, or removed when value is undefined. */
export function withField(obj: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(obj);
  const parts = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let node = copy as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) node = node[p] as Record<string, unknown>;
  const last = parts[parts.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
