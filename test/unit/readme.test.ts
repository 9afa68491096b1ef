// The README is part of the interface: its error table must match the catalogue, and its
// configuration table must name every key.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../src/errors.ts';
import { ConfigSchema, configKeys } from '../../src/config/index.ts';

const README = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

describe('README', () => {
  it('lists every error code with its HTTP status and retryability, and no other', () => {
    const rows = [...README.matchAll(/^\| `(ERR_[A-Z0-9_]+)` \| (\d{3}) \| (yes|no) \|/gm)].map((m) => [m[1], Number(m[2]), m[3] === 'yes']);
    const catalogue = Object.entries(ERRORS).map(([code, spec]) => [code, spec.status, spec.retryable]);
    expect(rows.sort()).toEqual(catalogue.sort());
  });

  it('documents every configuration key', () => {
    for (const key of configKeys(ConfigSchema)) expect(README, key).toContain(`| \`${key}\` |`);
  });
});
