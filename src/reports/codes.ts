// Codes of the recovery report (src/reports/), merged into the catalogue by src/catalogue.ts.
import type { ErrorSpec } from '../error-types.ts';

export const REPORT_ERRORS = {
  ERR_REPORT_INVALID_QUERY: { status: 400, retryable: false, message: 'A report parameter is invalid: since must be a time (2026-11-01, 2026-11-01T00:00:00Z) or a duration back from now (24h, 30d).' },
} as const satisfies Record<string, ErrorSpec>;
