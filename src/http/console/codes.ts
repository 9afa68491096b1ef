// Codes of the operator console (src/http/console/), merged into the catalogue by src/errors.ts.
import type { ErrorSpec } from '../../error-types.ts';

export const CONSOLE_ERRORS = {
  ERR_CONSOLE_UNAUTHORIZED: { status: 401, retryable: false, message: 'The console needs the operator token: Authorization: Bearer <token>, or sign in at /console/login.' },
} as const satisfies Record<string, ErrorSpec>;
