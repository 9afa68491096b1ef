// src/errors.ts imports nothing: the catalogue (src/catalogue.ts) registers every stage's
// codes with it where the process starts, and a RescuedError takes its status, retryability
// and message from what was registered.
import { describe, expect, it } from 'vitest';
import { registerErrors, RescuedError, type ErrorCode } from '../../src/errors.ts';
import { ERRORS } from '../../src/catalogue.ts';
import { INTAKE_ERRORS } from '../../src/intake/codes.ts';

describe('error catalogue', () => {
  it('gives every code of every stage its status, retryability and message', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(new RescuedError(code as ErrorCode), code).toMatchObject({ code, status: spec.status, retryable: spec.retryable, message: spec.message, errors: [] });
    }
  });

  it('refuses a code two stages define differently, and takes the same table twice', () => {
    expect(() => registerErrors({ ERR_INTERNAL: { status: 418, retryable: false, message: 'Defined again.' } })).toThrow('The error code ERR_INTERNAL is defined twice');
    expect(() => registerErrors(INTAKE_ERRORS)).not.toThrow();
    expect(new RescuedError('ERR_INTERNAL').status).toBe(500);
  });

  it('names the module to load when a code was never registered', () => {
    expect(() => new RescuedError('ERR_NEVER_REGISTERED' as ErrorCode)).toThrow('The error code ERR_NEVER_REGISTERED is not registered: import src/catalogue.ts where the process starts');
  });
});
