// The error catalogue, assembled where the stages are wired: the core's codes (src/errors.ts)
// and every stage's codes.ts, registered with src/errors.ts when this module loads. The
// process's entry points load it (src/main.ts, src/daemon.ts; the test runner, in
// .config/vitest.config.ts), so a stage throws a RescuedError without importing the stages
// above it. docs/errors.md is the same table (test/unit/readme.test.ts).
// A stage with a new codes.ts imports it here and adds it to STAGES (docs/development.md,
// "Adding an error code").
import { CORE_ERRORS, registerErrors } from './errors.ts';
import { MODEL_ERRORS } from './domain/codes.ts';
import { INTAKE_ERRORS } from './intake/codes.ts';
import { WEBHOOK_ERRORS } from './webhooks/codes.ts';
import { PROCESSOR_ERRORS } from './processors/codes.ts';
import { REPORT_ERRORS } from './reports/codes.ts';
import { API_ERRORS } from './http/codes.ts';
import { CONSOLE_ERRORS } from './http/console/codes.ts';

const STAGES = [CORE_ERRORS, MODEL_ERRORS, INTAKE_ERRORS, API_ERRORS, WEBHOOK_ERRORS, PROCESSOR_ERRORS, REPORT_ERRORS, CONSOLE_ERRORS] as const;

/** Every stage's table as one type: each code with its own spec. */
type Merged<T extends readonly object[]> = T extends readonly [infer First, ...infer Rest extends readonly object[]] ? First & Merged<Rest> : unknown;
type Catalogue = Merged<typeof STAGES>;

export const ERRORS = Object.assign({}, ...STAGES) as Catalogue;

declare module './errors.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: the codes become ErrorCode
  interface ErrorCatalogue extends Catalogue {}
}

for (const codes of STAGES) registerErrors(codes);
