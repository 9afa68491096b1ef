// The shapes of the error catalogue, for the stages' codes.ts: they are declared in
// src/errors.ts, which imports nothing, and named here too so a stage's table of codes needs
// only its types.
export type { ErrorSpec, FieldError } from './errors.ts';
